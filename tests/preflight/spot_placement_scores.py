"""A local EC2 Query API answering ``GetSpotPlacementScores`` (moto has none), as the API
documents it: form-encoded request, XML answer with a ``spotPlacementScoreSet``."""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.runs.local_https import Reply, Request


@dataclass
class SpotScoresApi:
    scores: dict[str, int] = field(default_factory=dict)  # region -> score
    calls: list[dict[str, str]] = field(default_factory=list)

    def route(self, request: Request) -> Reply:
        body = request.body or {}
        self.calls.append(body)
        if body.get("Action") != "GetSpotPlacementScores":
            return Reply(400, _error("InvalidAction", "not served here"))
        region = body.get("RegionName.1", "")
        items = (
            f"<item><region>{region}</region><score>{self.scores[region]}</score></item>"
            if region in self.scores
            else ""
        )
        xml = (
            '<GetSpotPlacementScoresResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">'
            "<requestId>req-1</requestId>"
            f"<spotPlacementScoreSet>{items}</spotPlacementScoreSet>"
            "</GetSpotPlacementScoresResponse>"
        )
        return Reply(200, xml.encode())


def _error(code: str, message: str) -> bytes:
    return (
        f"<Response><Errors><Error><Code>{code}</Code><Message>{message}</Message></Error>"
        "</Errors><RequestID>req-1</RequestID></Response>"
    ).encode()
