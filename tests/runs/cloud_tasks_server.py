"""A local server speaking the Cloud Tasks v2 REST API as google-cloud-tasks calls it, for what a
run touches: tasks in a queue (create, list, delete). Queues exist as a stack deploys them, with
their HTTP target (the call every task of theirs makes, whatever the task says). ``dispatch``
does what Cloud Tasks does when a task's time comes: sends that call, as its queue says, to the
local Compute Engine API. Credentials are checked by the Compute API's rules (one server)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.runs.local_https import Reply, Request

API = "/v2/"


@dataclass
class Queue:
    # The queue's HTTP target as deployed: method, path and query of the call its tasks make.
    method: str
    path: str
    query: str
    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)


class CloudTasksApi:
    def __init__(self, project: str, authenticated: Callable[[str], bool]) -> None:
        self.project = project
        self.authenticated = authenticated
        self.queues: dict[str, Queue] = {}
        self.denied: set[str] = set()
        self._ids = itertools.count(1)

    def queue_path(self, region: str, name: str) -> str:
        return f"projects/{self.project}/locations/{region}/queues/{name}"

    def add_queue(self, region: str, name: str, *, path: str, query: str) -> Queue:
        queue = Queue("POST", path, query)
        self.queues[self.queue_path(region, name)] = queue
        return queue

    def dispatch(self, queue: Queue, task: str, compute: Callable[[Request], Reply]) -> Reply:
        """Run a task as Cloud Tasks would at its time: its queue's call, with a token the API
        accepts (minted for the queue's account), then the task is gone."""
        del queue.tasks[task]
        query = dict(pair.split("=", 1) for pair in queue.query.split("&") if pair)
        headers = {"authorization": "Bearer ya29.local-test-token"}
        return compute(Request(queue.method, queue.path, query, headers, None))

    # --- the API -------------------------------------------------------------------------

    def route(self, request: Request) -> Reply:
        if not self.authenticated(request.headers.get("authorization", "")):
            return _error(401, "Request had invalid authentication credentials.", "UNAUTHENTICATED")
        path = request.path.removeprefix(API)
        queue_pattern = r"(projects/[^/]+/locations/[^/]+/queues/[^/]+)"
        routes: list[tuple[str, str, str, Any]] = [
            (f"{queue_pattern}/tasks", "POST", "tasks.create", self._create),
            (f"{queue_pattern}/tasks", "GET", "tasks.list", self._list),
            (f"{queue_pattern}/tasks/([^/]+)", "DELETE", "tasks.delete", self._delete),
        ]
        for pattern, method, action, handler in routes:
            found = re.fullmatch(pattern, path)
            if found and request.method == method:
                permission = f"cloudtasks.{action}"
                if permission in self.denied:
                    return _error(
                        403,
                        f"The principal (user or service account) lacks IAM permission "
                        f'"{permission}" for the resource "{found.group(1)}" (or the resource '
                        "may not exist).",
                        "PERMISSION_DENIED",
                    )
                queue = self.queues.get(found.group(1))
                if queue is None:
                    return _error(404, "Queue does not exist.", "NOT_FOUND")
                return handler(request, queue, found.group(1), *found.groups()[1:])
        return _error(404, f"The resource '{request.path}' was not found", "NOT_FOUND")

    def _create(self, request: Request, queue: Queue, path: str) -> Reply:
        task = dict(request.body["task"])
        task["name"] = f"{path}/tasks/{next(self._ids):020d}"
        task.setdefault("createTime", "2026-01-01T00:00:00Z")
        queue.tasks[task["name"]] = task
        return Reply(200, task)

    def _list(self, request: Request, queue: Queue, path: str) -> Reply:
        return Reply(200, {"tasks": list(queue.tasks.values())})

    def _delete(self, request: Request, queue: Queue, path: str, task: str) -> Reply:
        name = f"{path}/tasks/{task}"
        if queue.tasks.pop(name, None) is None:
            return _error(404, "The task no longer exists", "NOT_FOUND")
        return Reply(200, {})


def _error(status: int, message: str, state: str) -> Reply:
    return Reply(status, {"error": {"code": status, "message": message, "status": state}})
