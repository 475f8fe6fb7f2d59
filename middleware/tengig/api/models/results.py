"""tengig.results: the stored benchmark runs (query, get, compare, export)."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .base import SQLITE_INT_MAX, ApiInput, ApiOutput, RowId

RunKind = Literal["pool", "net", "smb", "smallfiles", "all"]
RunStatus = Literal["running", "success", "failed", "aborted"]


class TenGigResultsRawOutput(ApiOutput):
    tool: str = Field(description="Short tool name, e.g. 'fio', 'iperf3', 'smbclient'.")
    argv: list[str] = Field(description="The exact argv that ran (including any `ip netns exec` prefix).")
    exit_code: int | None = Field(description="Exit status; null when it was killed (timeout) before exiting.")
    stdout: str = Field(description="Everything the tool wrote to standard output.")
    stderr: str = Field(description="Everything the tool wrote to standard error.")
    started: float = Field(description="Epoch seconds when it started.")
    seconds: float = Field(description="Wall time, s.")


class TenGigResultsNic(ApiOutput):
    name: str = Field(description="Interface name, e.g. 'eth0'.")
    speed_bps: int | None = Field(description="Speed the kernel reports, bits/s; null when unknown.")
    mtu: int | None = Field(description="MTU, bytes.")
    driver: str | None = Field(description="Kernel driver (e.g. 'ixgbe') or virtual link kind (e.g. 'veth').")


class TenGigResultsEnvironment(ApiOutput):
    tools: dict[str, str | None] = Field(description="Tool -> version as the tool printed it; null: not found.")
    kernel: str | None = Field(description="`uname -r`.")
    os: str | None = Field(description="PRETTY_NAME from /etc/os-release.")
    zfs_version: str | None = Field(description="`zfs version` first line, or 'ZFS pool version N' (zfs-fuse).")
    arc_size_bytes: int | None = Field(description="ARC maximum size (arcstats c_max), bytes.")
    arc_source: str | None = Field(description="Where arc_size_bytes was read.")
    dataset_properties: dict[str, str] = Field(description="ZFS property -> exact value of the measured dataset.")
    nics: list[TenGigResultsNic] = Field(description="The network interfaces as the system reported them.")
    hostname: str | None = Field(description="The host's name.")
    pool_layout: str | None = Field(None, description="The measured pool's vdevs in one line (from `zpool status`).")
    truenas_version: str | None = Field(None, description="TrueNAS's version (/etc/version); null on other systems.")
    probe_errors: dict[str, str] = Field(description="Probe name -> why it yielded nothing.")


class TenGigResultsEntry(ApiOutput):
    id: int = Field(description="Run id.")
    started: float = Field(description="Epoch seconds.")
    finished: float | None = Field(description="Epoch seconds; null while running.")
    kind: RunKind = Field(description="What was measured: pool, net, smb, or all of them.")
    status: RunStatus = Field(description="running, success, failed or aborted.")
    inputs: dict[str, Any] = Field(description="The arguments the run was started with.")
    results: dict[str, Any] | None = Field(description="Measurements; null unless status is success.")
    verdict: dict[str, Any] | None = Field(description="The verdict (winner, margin, bottleneck, advice).")
    error: str | None = Field(description="Why the run failed or was aborted.")
    environment: TenGigResultsEnvironment | None = Field(description="Fingerprint of the system it measured.")
    raw: list[TenGigResultsRawOutput] = Field(
        description="Every tool invocation, in order (empty in query results unless include_raw)."
    )


class TenGigResultsQueryOptions(ApiInput):
    kind: RunKind | None = Field(None, description="Only runs of this kind.")
    status: RunStatus | None = Field(None, description="Only runs with this status.")
    limit: int = Field(50, ge=1, le=1000, description="At most this many runs (newest first).")
    offset: int = Field(0, ge=0, le=SQLITE_INT_MAX, description="Skip this many runs first.")
    include_raw: bool = Field(False, description="Include every run's raw tool outputs (large).")


class TenGigResultsQueryArgs(ApiInput):
    options: TenGigResultsQueryOptions = Field(
        default_factory=TenGigResultsQueryOptions, description="Which runs, how many."
    )


class TenGigResultsQueryResult(ApiOutput):
    result: list[TenGigResultsEntry] = Field(description="Runs, newest first.")


class TenGigResultsGetArgs(ApiInput):
    id: RowId = Field(description="Run id.")


class TenGigResultsGetResult(ApiOutput):
    result: TenGigResultsEntry = Field(description="The run, with its raw tool outputs.")


class TenGigResultsCompareArgs(ApiInput):
    a: RowId = Field(description="The run to compare against (the baseline).")
    b: RowId = Field(description="The run compared with a.")


class TenGigResultsRunSummary(ApiOutput):
    id: int = Field(description="Run id.")
    kind: RunKind = Field(description="What was measured.")
    status: RunStatus = Field(description="The run's status.")
    started: float = Field(description="Epoch seconds.")


class TenGigResultsMetricDelta(ApiOutput):
    a: float = Field(description="Value in run a.")
    b: float = Field(description="Value in run b.")
    delta: float = Field(description="b - a.")
    delta_percent: float | None = Field(description="(b - a) / a x 100; null when a is 0.")
    unit: str = Field(description="Unit named by the metric's suffix ('B/s', 'bit/s', 's', ...); '' if none.")


class TenGigResultsValuePair(ApiOutput):
    a: Any = Field(description="Value in run a (null: absent).")
    b: Any = Field(description="Value in run b (null: absent).")


class TenGigResultsCeilingChange(ApiOutput):
    scope: str = Field(description="Whose verdict: 'aggregate' (all clients at once) or a client's name.")
    direction: Literal["read", "write"] = Field(description="read or write.")
    component: Literal["pool", "link", "network", "smb"] = Field(description="The chain's component.")
    a: float | None = Field(description="Its ceiling in run a, bytes/s (the one the verdict used); null: absent.")
    b: float | None = Field(description="Its ceiling in run b, bytes/s; null: absent.")
    delta_percent: float | None = Field(description="(b - a) / a x 100; null when either is absent or a is 0.")
    moved: bool = Field(description="Changed by at least 5%, or present in one run only.")
    bottleneck_a: bool = Field(description="The bottleneck of that direction in run a.")
    bottleneck_b: bool = Field(description="The bottleneck of that direction in run b.")


class TenGigResultsFixCheck(ApiOutput):
    direction: Literal["read", "write"] = Field(description="read or write.")
    measured_bytes_per_s: float = Field(description="SMB before the fix, bytes/s.")
    predicted_bytes_per_s: float = Field(description="The fix's prediction, bytes/s.")
    bound_bytes_per_s: float | None = Field(None, description="The lowest ceiling left, before SMB's share of it on "
                                            "this NAS, bytes/s (null: an older record).")
    measured_after_bytes_per_s: float = Field(description="SMB after the fix, bytes/s.")
    bound: Literal["pool", "link", "network", "smb"] = Field(description="The component the prediction came from.")
    off_percent: float = Field(description="(measured after - predicted) / predicted x 100.")
    within: bool = Field(description="Within 15% of the prediction.")


class TenGigResultsFixLink(ApiOutput):
    fix_id: int = Field(description="The fix's id (tengig.fix).")
    name: str = Field(description="The fix's name, e.g. dataset-recordsize.")
    state: Literal["applying", "kept", "rolled-back", "undone", "failed"] = Field(description="Kept or put back.")
    before_run_id: int = Field(description="The run whose verdict the fix answered.")
    after_run_id: int = Field(description="The run that measured SMB again after it.")
    setting: str = Field(description="The setting, e.g. 'recordsize of tgtank/smb'.")
    from_value: str | None = Field(description="Its value before the fix (inherit: inherited).")
    to_value: str | None = Field(description="The value the fix set.")
    predictions: list[TenGigResultsFixCheck] = Field(description="Each direction: predicted against measured.")
    gains: list[str] = Field(description="Each direction's gain judged against the runs' spread, in words.")
    why: str = Field(description="Why it was kept or put back.")


class TenGigResultsComparison(ApiOutput):
    a: TenGigResultsRunSummary = Field(description="Run a.")
    b: TenGigResultsRunSummary = Field(description="Run b.")
    metrics: dict[str, TenGigResultsMetricDelta] = Field(description="Metric path -> both values and the delta.")
    only_in_a: list[str] = Field(description="Metric paths only run a has.")
    only_in_b: list[str] = Field(description="Metric paths only run b has.")
    environment: dict[str, TenGigResultsValuePair] = Field(description="Environment values that differ.")
    ceilings: list[TenGigResultsCeilingChange] = Field(
        description="Every ceiling of every verdict's chain (aggregate, each client) in both runs, with the change.")
    moved: list[str] = Field(description="Which ceilings moved (and bottlenecks that changed), one line each: "
                             "'aggregate read: link 129.5 -> 235.4 MB/s (+81.8%), the bottleneck in both'.")
    fix: TenGigResultsFixLink | None = Field(None, description="The fix that links the two runs (one measured "
                                             "SMB again after a fix made from the other's verdict); null: none.")


class TenGigResultsCompareResult(ApiOutput):
    result: TenGigResultsComparison = Field(description="Run b against run a.")


class TenGigResultsExportArgs(ApiInput):
    format: Literal["json", "csv", "md"] = Field(
        "json", description="json: one document with raw outputs; csv: one row per (run, metric); md: one run as a "
        "Markdown report (verdict, chain tables, per-client and aggregate figures, environment, tool versions). "
        "Secrets (passwords, tokens, keys) are redacted in every format.")
    ids: list[RowId] | None = Field(None, description="These runs, in this order; null: every run, newest first. "
                                    "Format md: exactly one run id.")


class TenGigResultsExportResult(ApiOutput):
    result: str = Field(description="The export document as text.")


class TenGigResultsDeleteArgs(ApiInput):
    id: RowId = Field(description="Run id.")


class TenGigResultsDeleteResult(ApiOutput):
    result: Literal[True] = Field(description="True: the run and its raw tool outputs are gone.")
