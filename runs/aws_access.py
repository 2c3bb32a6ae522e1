"""AWS for a run: an Auto Scaling client from the standard credential chain, and the SDK's
errors as one line naming the missing credential or permission.

boto3 finds credentials and endpoints the usual way (``AWS_PROFILE``, ``AWS_ACCESS_KEY_ID``,
``~/.aws``, SSO, an instance or container role; ``AWS_ENDPOINT_URL`` for another endpoint).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import boto3.session
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    EndpointConnectionError,
    NoCredentialsError,
    NoRegionError,
)

from gpufleet.runs.cloud_error import CloudError

# Botocore's standard mode retries throttling and 5xx with backoff: for callers that make many
# calls (a catalog refresh, a preflight).
RETRIES = Config(retries={"mode": "standard", "max_attempts": 8})
NO_CREDENTIALS = (
    "no credentials found (AWS_PROFILE, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, ~/.aws/"
    "credentials or config, SSO, an instance or container role)"
)
_DENIED = frozenset(
    {"AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "UnauthorizedAccess"}
)
_REJECTED = frozenset(
    {
        "InvalidClientTokenId",
        "UnrecognizedClientException",
        "SignatureDoesNotMatch",
        "ExpiredToken",
        "ExpiredTokenException",
        "AuthFailure",
        "InvalidAccessKeyId",
    }
)


def autoscaling_client(region: str) -> Any:
    # A session of its own: boto3's default one keeps the credentials it found first.
    # Any: botocore builds its clients' methods at run time, from the service model.
    return boto3.session.Session().client("autoscaling", region_name=region)


@contextmanager
def aws_errors(action: str, resource: str) -> Iterator[None]:
    """SDK errors inside as ``CloudError``: ``action`` is the IAM action the call needs
    (``autoscaling:SetDesiredCapacity``), ``resource`` what it acts on."""
    try:
        yield
    except NoCredentialsError:
        raise CloudError("aws", NO_CREDENTIALS) from None
    except ClientError as exc:
        error = exc.response.get("Error", {})
        code, message = error.get("Code", "?"), error.get("Message", "")
        if code in _DENIED:
            raise CloudError("aws", f"permission denied: {action} on {resource}") from None
        if code in _REJECTED:
            raise CloudError("aws", f"credentials rejected ({code}): {message}") from None
        raise CloudError("aws", f"{action} on {resource} failed: {code}: {message}") from None
    except EndpointConnectionError as exc:
        raise CloudError("aws", f"cannot reach {exc.kwargs.get('endpoint_url')}") from None
    except NoRegionError:
        raise CloudError("aws", "no region") from None
    except BotoCoreError as exc:
        raise CloudError("aws", f"{action} on {resource} failed: {exc}") from None
