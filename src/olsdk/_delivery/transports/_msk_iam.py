"""``type: msk-iam``: Kafka on Amazon MSK with IAM authentication (optional extras
``kafka`` and ``aws``: confluent-kafka, boto3, aws-msk-iam-sasl-signer-python).

The official client's keys: the ``kafka`` ones plus ``region`` (else ``$AWS_REGION``,
else boto3's configured region), ``aws_profile``, ``role_arn`` and ``aws_debug_creds``.
The producer authenticates with SASL OAUTHBEARER; its token comes from the MSK IAM
signer (from the profile, the role, or the default credentials chain), made offline
from AWS credentials and renewed by librdkafka through ``oauth_cb``.
"""

from __future__ import annotations

import functools
import logging
import os
from typing import Any

from olsdk._delivery.transports._kafka import KafkaSettings, KafkaTransport
from olsdk._foundation._exceptions import ConfigError

__all__ = ["MskIamSettings", "MskIamTransport", "msk_oauth_token", "producer_config"]

log = logging.getLogger("olsdk._delivery.transports._msk_iam")


class MskIamSettings(KafkaSettings):
    region: str | None = None
    aws_profile: str | None = None
    role_arn: str | None = None
    aws_debug_creds: bool = False


def _region(settings: MskIamSettings) -> str:
    if settings.region:
        return settings.region
    if os.environ.get("AWS_REGION"):
        return os.environ["AWS_REGION"]
    try:
        import boto3  # type: ignore[import-untyped]
    except ImportError:
        boto3 = None
    if boto3 is not None:
        session = boto3.DEFAULT_SESSION or boto3.Session()
        if session.region_name:
            return str(session.region_name)
    raise ConfigError("transport.region: required for msk-iam (or set AWS_REGION)", "transport.region")


def msk_oauth_token(settings: MskIamSettings, region: str, *_: Any) -> tuple[str, float]:
    """librdkafka's ``oauth_cb``: (token, expiry in seconds since the epoch)."""
    from aws_msk_iam_sasl_signer import MSKAuthTokenProvider  # type: ignore[import-untyped]

    if settings.aws_profile:
        token, expiry_ms = MSKAuthTokenProvider.generate_auth_token_from_profile(region, settings.aws_profile)
    elif settings.role_arn:
        token, expiry_ms = MSKAuthTokenProvider.generate_auth_token_from_role_arn(region, settings.role_arn)
    else:
        token, expiry_ms = MSKAuthTokenProvider.generate_auth_token(region, aws_debug_creds=settings.aws_debug_creds)
    return str(token), float(expiry_ms) / 1000


def producer_config(settings: MskIamSettings) -> dict[str, Any]:
    """The librdkafka properties of the producer: the section's ``config`` plus SASL/IAM."""
    try:
        import aws_msk_iam_sasl_signer  # noqa: F401  # type: ignore[import-untyped]
    except ImportError:
        raise ConfigError(
            "transport.type: msk-iam needs aws-msk-iam-sasl-signer-python (pip install 'olsdk[aws,kafka]')",
            "transport.type",
        ) from None
    region = _region(settings)
    return {
        **settings.config,
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "OAUTHBEARER",
        "oauth_cb": functools.partial(msk_oauth_token, settings, region),
    }


class MskIamTransport(KafkaTransport):
    kind = "msk-iam"

    def __init__(
        self, settings: MskIamSettings, *, name: str | None = None, priority: int = 0, producer: Any = None
    ) -> None:
        self.producer_config = producer_config(settings)
        super().__init__(settings, name=name, priority=priority, producer=producer)

    def _make_producer(self) -> Any:
        try:
            import confluent_kafka
        except ImportError:
            raise ConfigError(
                "transport.type: msk-iam needs confluent-kafka (pip install 'olsdk[aws,kafka]')", "transport.type"
            ) from None
        try:
            return confluent_kafka.Producer(self.producer_config)
        except confluent_kafka.KafkaException as exc:
            raise ConfigError(f"transport.config: {exc.args[0].str()}", "transport.config") from None
