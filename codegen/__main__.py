"""Command line of the generator: `python -m codegen {spec,generate,upgrade,restore} ...`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from codegen.manifest import (
    MANIFEST_PATH,
    SPEC_DIR,
    SpecError,
    fill_spec,
    load_manifest,
    verify_spec,
)
from codegen.render import GeneratedPackage, render_package, write_package
from codegen.stage import stage

ROOT = Path(__file__).resolve().parent.parent
GENERATED_DIR = ROOT / "src" / "olsdk"


def cmd_spec(args: argparse.Namespace) -> int:
    manifest = load_manifest(Path(args.manifest))
    if not args.src and not args.download:
        # the committed snapshot: check it, never touch the network
        verify_spec(manifest, Path(args.spec_dir))
        print(f"spec/: {len(manifest.files)} files of {manifest.release} ({manifest.core_id}) verified")
        return 0
    src = Path(args.src) if args.src else None
    written = fill_spec(manifest, src=src, dest=Path(args.spec_dir))
    origin = f"from {src}" if src else "from the pinned URLs"
    print(
        f"spec/: {len(manifest.files)} files of {manifest.release} ({manifest.core_id}) verified; "
        f"{len(written)} copied {origin}"
    )
    return 0


def generate(
    spec_dir: Path = SPEC_DIR,
    manifest_path: Path = MANIFEST_PATH,
    out_dir: Path = GENERATED_DIR,
    extra_facets: list[Path] | None = None,
) -> tuple[GeneratedPackage, list[str]]:
    """Generate the models package; returns it and the files that changed."""
    manifest = load_manifest(manifest_path)
    verify_spec(manifest, spec_dir)
    staged = stage(spec_dir, manifest, extra_facet_dirs=extra_facets)
    package = render_package(staged, manifest)
    changed = write_package(package, out_dir)
    return package, changed


def cmd_generate(args: argparse.Namespace) -> int:
    package, changed = generate(
        spec_dir=Path(args.spec_dir),
        manifest_path=Path(args.manifest),
        out_dir=Path(args.out),
        extra_facets=[Path(p) for p in args.extra_facets],
    )
    status = "unchanged" if not changed else "changed: " + ", ".join(changed)
    models = package.class_count - package.enum_count
    print(f"src/olsdk/_models/_generated: {models} model classes and {package.enum_count} enums; {status}")
    return 0


def cmd_upgrade(args: argparse.Namespace) -> int:
    from codegen.upgrade import upgrade

    result = upgrade(
        args.src,
        release=args.release,
        manifest_path=Path(args.manifest),
        spec_dir=Path(args.spec_dir),
        out_dir=Path(args.out),
        report_dir=Path(args.report_dir) if args.report_dir else None,
    )
    print("\n".join(result.summary_lines()))
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from codegen.restore import restore

    result = restore(
        manifest_path=Path(args.manifest), spec_dir=Path(args.spec_dir), out_dir=Path(args.out), ref=args.ref
    )
    print("\n".join(result.summary_lines()))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codegen", description=__doc__)
    parser.add_argument("--manifest", default=str(MANIFEST_PATH))
    parser.add_argument("--spec-dir", default=str(SPEC_DIR))
    sub = parser.add_subparsers(dest="command", required=True)

    p_spec = sub.add_parser(
        "spec", help="check spec/ against the manifest; refill it from a folder (--src) or the pinned URLs (--download)"
    )
    how = p_spec.add_mutually_exclusive_group()
    how.add_argument("--src", help="refill missing or changed files from this local snapshot folder")
    how.add_argument("--download", action="store_true", help="refill missing or changed files from the pinned URLs")
    p_spec.set_defaults(func=cmd_spec)

    p_gen = sub.add_parser("generate", help="generate the models package from spec/")
    p_gen.add_argument("--out", default=str(GENERATED_DIR))
    p_gen.add_argument(
        "--extra-facets",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of extra facet schema files (e.g. an exported custom-facet folder)",
    )
    p_gen.set_defaults(func=cmd_generate)

    p_up = sub.add_parser("upgrade", help="pin a new snapshot, regenerate, write spec/CHANGES.*")
    p_up.add_argument("--src", help="snapshot folder, or an upstream release/tag to download")
    p_up.add_argument("--release", help="release name for the manifest (not a folder: download)")
    p_up.add_argument("--out", default=str(GENERATED_DIR))
    p_up.add_argument("--report-dir", help="for CHANGES.md/.json (default: the manifest's folder)")
    p_up.set_defaults(func=cmd_upgrade)

    p_back = sub.add_parser(
        "restore",
        help="go back to the snapshot committed in git (after an upgrade): spec/ and the models as committed",
    )
    p_back.add_argument("--ref", default="HEAD", help="the git revision whose spec/ to restore (default: HEAD)")
    p_back.add_argument("--out", default=str(GENERATED_DIR))
    p_back.set_defaults(func=cmd_restore)

    args = parser.parse_args(argv)
    try:
        result: int = args.func(args)
    except SpecError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return result


if __name__ == "__main__":
    sys.exit(main())
