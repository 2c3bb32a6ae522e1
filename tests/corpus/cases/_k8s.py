"""The pulumi_kubernetes classes the corpus cases use, which this venv does not install: each
registers what the SDK's class does (its type token; apiVersion, kind, metadata, spec), and is a
CustomResource subclass like the SDK's, so the SDK records the user's line as its source (inline
skips are found there)."""

from __future__ import annotations

from typing import Any

import pulumi


class _Kubernetes(pulumi.CustomResource):
    TOKEN = ""
    API_VERSION = ""
    KIND = ""

    def __init__(
        self,
        resource_name: str,
        opts: pulumi.ResourceOptions | None = None,
        metadata: Any = None,
        spec: Any = None,
    ) -> None:
        props = {
            "apiVersion": self.API_VERSION,
            "kind": self.KIND,
            "metadata": metadata,
            "spec": spec,
        }
        super().__init__(self.TOKEN, resource_name, props, opts)


class Deployment(_Kubernetes):  # k8s.apps.v1.Deployment
    TOKEN, API_VERSION, KIND = "kubernetes:apps/v1:Deployment", "apps/v1", "Deployment"


class StatefulSet(_Kubernetes):  # k8s.apps.v1.StatefulSet
    TOKEN, API_VERSION, KIND = "kubernetes:apps/v1:StatefulSet", "apps/v1", "StatefulSet"


class Job(_Kubernetes):  # k8s.batch.v1.Job
    TOKEN, API_VERSION, KIND = "kubernetes:batch/v1:Job", "batch/v1", "Job"


class CronJob(_Kubernetes):  # k8s.batch.v1.CronJob
    TOKEN, API_VERSION, KIND = "kubernetes:batch/v1:CronJob", "batch/v1", "CronJob"


class Pod(_Kubernetes):  # k8s.core.v1.Pod
    TOKEN, API_VERSION, KIND = "kubernetes:core/v1:Pod", "v1", "Pod"


class CustomResource(pulumi.CustomResource):  # k8s.apiextensions.CustomResource
    def __init__(
        self,
        resource_name: str,
        api_version: str,
        kind: str,
        metadata: Any = None,
        opts: pulumi.ResourceOptions | None = None,
        spec: Any = None,
    ) -> None:
        props = {"apiVersion": api_version, "kind": kind, "metadata": metadata, "spec": spec}
        super().__init__(f"kubernetes:{api_version}:{kind}", resource_name, props, opts)


class Release(pulumi.CustomResource):  # k8s.helm.v3.Release
    def __init__(
        self,
        resource_name: str,
        opts: pulumi.ResourceOptions | None = None,
        chart: str | None = None,
        namespace: str | None = None,
        repository_opts: Any = None,
        values: Any = None,
        version: str | None = None,
    ) -> None:
        props = {
            "chart": chart,
            "namespace": namespace,
            "repositoryOpts": repository_opts,
            "values": values,
            "version": version,
        }
        super().__init__("kubernetes:helm.sh/v3:Release", resource_name, props, opts)
