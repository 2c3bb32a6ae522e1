"""A cloud refused or failed a run (exit 1), in one line that names the cloud and what is
missing: a credential, a permission on a resource, or the resources themselves."""

from __future__ import annotations

from gpufleet.clouds import Cloud


class CloudError(Exception):
    def __init__(self, cloud: Cloud, message: str) -> None:
        self.cloud: Cloud = cloud
        # One line whatever the SDK said: its messages may span several.
        self.message = " ".join(message.split())
        super().__init__(f"{cloud}: {self.message}")

    def after(self, left: str) -> CloudError:
        """The same failure, saying what the run's earlier steps left behind."""
        return CloudError(self.cloud, f"{self.message}; {left}")


def not_deployed(cloud: Cloud, what: str, where: str) -> CloudError:
    """The workload's resources are not where the stack builds them."""
    return CloudError(
        cloud,
        f"no {what} in {where}: is the stack deployed? (gpufleet up --env ENV, or pulumi up)",
    )


def ambiguous(cloud: Cloud, what: str, names: list[str]) -> CloudError:
    return CloudError(
        cloud,
        f"{len(names)} {what} carry this workload's tags ({', '.join(sorted(names))}); "
        "expected one: is the stack deployed twice under the same project and environment?",
    )
