"""Peak RSS while olsdk validates a large NDJSON stream, measured in a subprocess.

`run(size_bytes)` writes an NDJSON file of full events (the benchmark's full event,
each line with its own runId) into a temporary directory, then starts
`python -m bench.memory <file>` which reads it line by line, parses and validates every
line with `olsdk.parse_event`, drops the result, and samples its own RSS from
/proc/self/status as it goes. The child reports, as JSON: the RSS once warmed up (after
the first 1% of the file), at each tenth of the file, and its peak RSS while streaming
(VmHWM, reset after warm-up through /proc/self/clear_refs; where that is not possible,
the whole process's `ru_maxrss`, which includes the import-time peak).
The stream is flat when the peak stays within a few MB of the warmed-up RSS.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

FLAT_TOLERANCE_MB = 8.0


def _status_mb(key: str) -> float | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _rss_mb() -> float:
    rss = _status_mb("VmRSS")
    return rss if rss is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _reset_peak() -> bool:
    """Reset the kernel's peak-RSS mark (VmHWM) so it covers the stream only."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def write_ndjson(path: Path, size_bytes: int) -> tuple[int, int]:
    """Write at least `size_bytes` of full events; (events, bytes) written."""
    from bench.workloads import RUN_ID, official_bytes, official_full

    line = official_bytes(official_full())
    assert RUN_ID.encode() in line
    head, tail = line.split(RUN_ID.encode(), 1)
    prefix = RUN_ID[:-12].encode()
    events = written = 0
    chunk: list[bytes] = []
    with open(path, "wb") as out:
        while written < size_bytes:
            # a distinct run id per line, same length as the original
            item = b"%s%s%012x%s\n" % (head, prefix, events, tail)
            chunk.append(item)
            written += len(item)
            events += 1
            if len(chunk) == 1024:
                out.write(b"".join(chunk))
                chunk.clear()
        out.write(b"".join(chunk))
    return events, written


def validate_stream(path: str) -> dict[str, Any]:
    """Parse and validate every line of `path` with olsdk; RSS samples along the way."""
    import olsdk

    size = os.path.getsize(path)
    marks = [size * k // 10 for k in range(1, 11)]
    warm_at = size // 100
    warm_rss: float | None = None
    peak_reset = False
    samples: list[tuple[float, float]] = []  # (fraction of the file, RSS MB)
    events = 0
    done = 0
    t0 = time.perf_counter()
    with open(path, "rb") as stream:
        for line in stream:
            olsdk.parse_event(line)
            events += 1
            done += len(line)
            if warm_rss is None and done >= warm_at:
                warm_rss = _rss_mb()
                peak_reset = _reset_peak()
            if marks and done >= marks[0]:
                marks.pop(0)
                samples.append((round(done / size, 3), round(_rss_mb(), 1)))
    elapsed = time.perf_counter() - t0
    # peak while streaming: VmHWM reset after warm-up; else the whole process's peak
    process_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux
    hwm = _status_mb("VmHWM") if peak_reset else None
    peak = hwm if hwm is not None else process_peak
    return {
        "events": events,
        "bytes": size,
        "seconds": round(elapsed, 2),
        "warm_rss_mb": round(warm_rss or 0.0, 1),
        "peak_rss_mb": round(peak, 1),
        "peak_is_streaming_only": hwm is not None,
        "process_peak_rss_mb": round(process_peak, 1),
        "samples": samples,
    }


def run(size_bytes: int) -> dict[str, Any]:
    """Generate the file, validate it in a subprocess, return the child's report."""
    with tempfile.TemporaryDirectory(prefix="olsdk-bench-") as tmp:
        path = Path(tmp) / "events.ndjson"
        t0 = time.perf_counter()
        write_ndjson(path, size_bytes)
        generate_seconds = time.perf_counter() - t0
        proc = subprocess.run(
            [sys.executable, "-m", "bench.memory", str(path)],
            capture_output=True,
            text=True,
            check=False,
            cwd=Path(__file__).resolve().parent.parent,
            timeout=3600,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"memory benchmark failed:\n{proc.stderr}")
        report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    report["generate_seconds"] = round(generate_seconds, 2)
    report["growth_mb"] = round(report["peak_rss_mb"] - report["warm_rss_mb"], 1)
    report["flat"] = report["growth_mb"] <= FLAT_TOLERANCE_MB
    return report


if __name__ == "__main__":
    print(json.dumps(validate_stream(sys.argv[1])))
