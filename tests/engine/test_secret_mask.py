"""The secret mask: a secret value found however gpufleet's readers change it, short ones only
as whole words, data masked before it is escaped."""

from __future__ import annotations

from typing import Any

from gpufleet.engine.analyzer_resources import AnalyzerResource
from gpufleet.engine.secret_mask import MASK, SecretMask
from gpufleet.engine.wire import SECRET_SIG, SIG_KEY


def _secret(value: Any) -> dict[str, Any]:
    return {SIG_KEY: SECRET_SIG, "value": value}


def _mask(**inputs: Any) -> SecretMask:
    resource = AnalyzerResource(
        urn="urn:pulumi:dev::p::aws:ec2/instance:Instance::gpu",
        type="aws:ec2/instance:Instance",
        name="gpu",
        custom=True,
        inputs=inputs,
        state={},
    )
    return SecretMask([resource])


def test_a_secret_is_masked_whatever_case_a_reader_gives_it() -> None:
    mask = _mask(instanceType=_secret("P4DE.24XLarge"))
    assert mask("1 x p4de.24xlarge") == f"1 x {MASK}"
    assert mask("P4DE.24XLARGE has 8 x A100") == f"{MASK} has 8 x A100"


def test_a_secret_url_is_masked_by_its_last_segment_too() -> None:
    url = "projects/acme/zones/us-central1-a/machineTypes/a2-ultragpu-8g"
    mask = _mask(machineType=_secret(url))
    assert mask(f"machine {url}") == f"machine {MASK}"
    assert mask("a2-ultragpu-8g carries A100-80GB") == f"{MASK} carries A100-80GB"
    assert mask("us-central1-a") == "us-central1-a"  # only the last segment stands alone


def test_dash_and_underscore_are_alike_or_left_out() -> None:
    mask = _mask(kind=_secret("nvidia_tesla_a100"))
    assert mask("nvidia-tesla-a100 and nvidiateslaa100") == f"{MASK} and {MASK}"


def test_short_secrets_and_numbers_are_masked_as_whole_words_only() -> None:
    mask = _mask(zone=_secret("ab"), size=_secret(12), spot=_secret(True))
    assert mask("ab in p9.ab.x, not in tabs") == f"{MASK} in p9.{MASK}.x, not in tabs"
    assert mask("$112.00 for 12 instances") == f"$112.00 for {MASK} instances"
    assert mask("$12.00, 1,12 or 12.5 but 12 alone") == f"$12.00, 1,12 or 12.5 but {MASK} alone"
    assert mask("spot: true, not trueness") == f"spot: {MASK}, not trueness"


def test_one_character_and_blank_secrets_are_not_masked() -> None:
    mask = _mask(a=_secret("x"), b=_secret("  "), c=_secret("--"), d=_secret(7))
    assert mask("x 7 -- x") == "x 7 -- x"


def test_a_one_digit_secret_is_masked_in_what_is_said_of_its_resource() -> None:
    mask = _mask(maxSize=_secret(7), minSize=3)
    urn = "urn:pulumi:dev::p::aws:ec2/instance:Instance::gpu"
    assert mask("3..7 x g6.xlarge, $7.50", urn) == f"3..{MASK} x g6.xlarge, $7.50"
    assert mask("3..7 x g6.xlarge", "urn:pulumi:dev::p::aws:ec2/instance:Instance::other") == (
        "3..7 x g6.xlarge"
    )
    assert mask("3..7 x g6.xlarge") == "3..7 x g6.xlarge"


def test_a_secret_holding_another_is_masked_whole_in_one_pass() -> None:
    # "secret" inside the mask itself is never masked again.
    mask = _mask(a=_secret("hunter2-SECRET"), b=_secret("hunter2"), c=_secret("secret"))
    assert mask("p9.hunter2-secret.96xlarge") == f"p9.{MASK}.96xlarge"
    assert mask("hunter2 and secret") == f"{MASK} and {MASK}"


def test_regex_characters_in_a_secret_are_literal() -> None:
    mask = _mask(a=_secret("a.b*c(d"))
    assert mask("a.b*c(d axbbbc(d") == f"{MASK} axbbbc(d"


def test_only_values_under_a_secret_marker_are_masked() -> None:
    mask = _mask(plain="p4de.24xlarge", nested={"list": [_secret({"deep": "g6.xlarge"})]})
    assert mask("p4de.24xlarge, g6.xlarge") == f"p4de.24xlarge, {MASK}"


def test_data_is_masked_in_values_not_keys_nor_vocabulary() -> None:
    mask = _mask(a=_secret("gcp-prod-team"), cloud=_secret("gcp"))
    data = {"gcp": ["gcp-prod-team", {"cloud": "gcp", "n": 3}], "cloud": "gcp"}
    assert mask.within(data, keep={"cloud"}) == {
        "gcp": [MASK, {"cloud": "gcp", "n": 3}],
        "cloud": "gcp",
    }
