"""The panel's API types (ui/src/api/types.ts) against the server's pydantic models, failing on any drift
(tests/ui/types_drift.py says what is compared). Pure: node reads types.ts with the TypeScript compiler;
no browser, no lab.

The mapping (TS name -> model) lives here, not next to types.ts: its right-hand side is Python classes,
imported, so renaming or moving a model fails at import; the panel's build has no use for it."""
from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import Field

from tengig.api.models.bench import (
    TenGigBenchKit, TenGigBenchKitRequest, TenGigBenchOutcome, TenGigBenchRequest, TenGigBenchRunRequest, TenGigBenchSessionJoined,
    TenGigBenchSessionJoinInfo, TenGigBenchSessionSubmission, TenGigBenchSmallFilesSize, TenGigBenchSystemState,
)
from tengig.api.models.lagg import (
    TenGigLaggApplied, TenGigLaggApplyOptions, TenGigLaggValidation, TenGigLaggVerifyOptions,
)
from tengig.api.models.fix import (
    TenGigFixApplyRequest, TenGigFixEntry, TenGigFixGain, TenGigFixOutcome, TenGigFixCheck, TenGigFixPlanEntry, TenGigFixPrediction,
    TenGigFixRecord, TenGigFixSetting, TenGigFixWords,
)
from tengig.api.models.mesh import TenGigMeshApplyOptions, TenGigMeshVerifyOptions
from tengig.api.models.nic import TenGigNicQueryOptions
from tengig.api.models.results import (
    RunKind, RunStatus, TenGigResultsCeilingChange, TenGigResultsComparison, TenGigResultsEntry,
    TenGigResultsFixCheck, TenGigResultsFixLink,
    TenGigResultsMetricDelta,
    TenGigResultsQueryOptions, TenGigResultsRunSummary,
)
from tengig.api.models.targets import TenGigTargetsCreateTarget, TenGigTargetsEntry
from tengig.lagg import models as lagg_models
from tengig.lagg import request as lagg_request
from tengig.lagg import verify as lagg_verify
from tengig.lagg.joined import DesktopLaggTests, JoinedLaggVerification, TogetherTests
from tengig.lagg.measure import LaggVerification
from tengig.lagg.render import RenderedLagg
from tengig.mesh import models as mesh_models
from tengig.mesh import request as mesh_request
from tengig.mesh.apply_linux import MeshApplyResult
from tengig.mesh.render import RenderedConfig, RenderedFile
from tengig.changes import ApiCall
from tengig.mesh.verify import AsymmetricPair, LinkCheck, MeshVerifyResult, PairThroughput
from tengig.nic.models import Nic
from tengig.api.services import default_services
from tengig.bench import stats
from tengig.bench.phases import pool as pool_phase
from tengig.bench.phases import pool_members, scaling, smallfiles_results, smb_results
from tengig.bench.parse.smallfiles_parse import SmallOp
from tengig.bench.run import suite
from tengig.plugin_spec import build_plan
from tengig.verdict import models as verdict_models

from .types_drift import (
    METHODS_TS, OUTPUT, TYPES_TS, Method, check_types, directions, export_ts_files, panel_methods, top_level_models,
)

# Node runs the TypeScript compiler (make setup installs both); without it this fails rather than skips.

# TS interface or alias -> the model (or Literal) it mirrors.
MAPPING = {
    # literal unions
    "Direction": verdict_models.Direction,
    "Component": verdict_models.Component,
    "Provenance": verdict_models.Provenance,
    "RunKind": RunKind,
    "RunStatus": RunStatus,
    "Preset": TenGigBenchRequest.model_fields["preset"].annotation,
    "BenchSystemName": TenGigBenchSystemState.model_fields["name"].annotation,
    "HostKind": mesh_request.HostKind,
    "LaggPlatform": lagg_request.Platform,
    "LaggTopology": lagg_request.Topology,
    "LaggGoal": lagg_request.Goal,
    "LagProtocol": lagg_request.LagProtocol,
    "LaggComparisonStatus": lagg_verify.Comparison.model_fields["status"].annotation,
    # targets, bench, results, verdict
    "Target": TenGigTargetsEntry,
    "NewTarget": TenGigTargetsCreateTarget,
    "Verdict": verdict_models.Verdict,
    "DirectionVerdict": verdict_models.DirectionVerdict,
    "Ceiling": verdict_models.Ceiling,
    "Advice": verdict_models.Advice,
    "BenchReport": suite.BenchReport,
    "ClientReport": suite.ClientReport,
    "SmbConcurrentResult": smb_results.SmbConcurrentResult,
    "ConcurrentDirection": smb_results.ConcurrentDirection,
    "SmallFilesResult": smallfiles_results.SmallFilesResult,
    "SmallSizeResult": smallfiles_results.SmallSizeResult,
    "SmallOpResult": smallfiles_results.SmallOpResult,
    "Percentiles": smallfiles_results.Percentiles,
    "SmallOp": SmallOp,
    "SmallFilesSize": TenGigBenchSmallFilesSize,
    "SmbMultichannel": smb_results.SmbMultichannel,
    "Repeated": stats.Repeated,
    "PoolReport": pool_phase.PoolBenchResult,
    "ScalingResult": scaling.ScalingResult,
    "ScalingSweep": scaling.ScalingSweep,
    "ScalingStep": scaling.ScalingStep,
    "MemberLoad": pool_members.MemberLoad,
    "BenchSystemState": TenGigBenchSystemState,
    "BenchKitRequest": TenGigBenchKitRequest,
    "BenchKit": TenGigBenchKit,
    "BenchRunRequest": TenGigBenchRunRequest,
    "BenchOutcome": TenGigBenchOutcome,
    "RunEntry": TenGigResultsEntry,
    "ResultsQueryOptions": TenGigResultsQueryOptions,
    "RunSummary": TenGigResultsRunSummary,
    "MetricDelta": TenGigResultsMetricDelta,
    "Comparison": TenGigResultsComparison,
    "CeilingChange": TenGigResultsCeilingChange,
    "FixLink": TenGigResultsFixLink,
    "FixLinkCheck": TenGigResultsFixCheck,
    # mesh
    "MeshPortRequest": mesh_request.MeshPort,
    "MeshHostRequest": mesh_request.MeshHost,
    "MeshRequest": mesh_request.MeshRequest,
    "CableEnd": mesh_models.CableEnd,
    "MeshCable": mesh_models.MeshCable,
    "HostsEntry": mesh_models.HostsEntry,
    "HostPort": mesh_models.HostPort,
    "HostPlan": mesh_models.HostPlan,
    "DiagramNode": mesh_models.DiagramNode,
    "DiagramEdge": mesh_models.DiagramEdge,
    "PlanNote": mesh_models.PlanNote,
    "MeshPlan": mesh_models.MeshPlan,
    "RenderedFile": RenderedFile,
    "RenderedConfig": RenderedConfig,
    "MeshApplyOptions": TenGigMeshApplyOptions,
    "MeshVerifyOptions": TenGigMeshVerifyOptions,
    "MeshApplyResult": MeshApplyResult,
    "LinkCheck": LinkCheck,
    "PairThroughput": PairThroughput,
    "AsymmetricPair": AsymmetricPair,
    "MeshVerifyResult": MeshVerifyResult,
    # NICs and LAGG
    "NicQueryOptions": TenGigNicQueryOptions,
    "Nic": Nic,
    "LaggRequest": lagg_request.LaggRequest,
    "LaggMember": lagg_models.LaggMember,
    "ExpectedThroughput": lagg_models.ExpectedThroughput,
    "LaggPlan": lagg_models.LaggPlan,
    "ApiCall": ApiCall,
    "RenderedLagg": RenderedLagg,
    "LaggValidation": TenGigLaggValidation,
    "LaggApplyOptions": TenGigLaggApplyOptions,
    "LaggApplied": TenGigLaggApplied,
    "LaggVerifyOptions": TenGigLaggVerifyOptions,
    "LaggFlowResult": lagg_verify.FlowResult,
    "LaggMemberBytes": lagg_verify.MemberBytes,
    "LaggCounterWindow": lagg_verify.CounterWindow,
    "LaggMeasurements": lagg_verify.VerifyRequest,
    "LaggComparison": lagg_verify.Comparison,
    "LaggMemberShare": lagg_verify.MemberShare,
    "LaggBalance": lagg_verify.Balance,
    "LaggVerdict": lagg_verify.LaggVerdict,
    "LaggVerification": LaggVerification,
    "LaggDesktopTests": DesktopLaggTests,
    "LaggTogetherTests": TogetherTests,
    "JoinedLaggVerification": JoinedLaggVerification,
    # fixes
    "FixPlatform": TenGigFixSetting.model_fields["platform"].annotation,
    "FixSettingKind": TenGigFixSetting.model_fields["kind"].annotation,
    "FixGainVerdict": TenGigFixGain.model_fields["verdict"].annotation,
    "FixState": TenGigFixOutcome.model_fields["state"].annotation,
    "FixRecordState": TenGigFixRecord.model_fields["state"].annotation,
    "FixSetting": TenGigFixSetting,
    "FixPrediction": TenGigFixPrediction,
    "FixEntry": TenGigFixEntry,
    "FixWords": TenGigFixWords,
    "FixPlan": TenGigFixPlanEntry,
    "FixApplyRequest": TenGigFixApplyRequest,
    "FixGain": TenGigFixGain,
    "FixOutcome": TenGigFixOutcome,
    "FixPredictionCheck": TenGigFixCheck,
    "FixRecord": TenGigFixRecord,
}

# Exported TS names that mirror no tengig model, and why.
NOT_MIRRORED = {
    "JobState": "middlewared's job states (core.get_jobs), not a tengig model",
    "JobProgress": "middlewared's job progress (core.get_jobs)",
    "Job": "middlewared's job as core.get_jobs events carry it",
    "MeshWhere": "the base of MeshVerifyOptions (TenGigMeshWhere is no method's parameter): checked through it",
    "CheckinOptions": "a fragment of MeshApplyOptions and LaggApplyOptions: checked through them",
    "CheckinProgress": "progress.extra.checkin, a dict tengig/api/checkins.py builds, no model",
    "AuthMechanism": "middlewared's auth.login_ex (tengig serve answers the same shapes), no tengig model",
    "AuthPasswordPlain": "auth.login_ex",
    "AuthApiKeyPlain": "auth.login_ex",
    "AuthLoginData": "auth.login_ex",
    "AuthUserInfo": "auth.login_ex",
    "AuthRespSuccess": "auth.login_ex",
    "AuthRespAuthErr": "auth.login_ex",
    "AuthRespExpired": "auth.login_ex",
    "AuthRespOtpRequired": "auth.login_ex",
    "AuthRespRedirect": "auth.login_ex",
    "AuthLoginExResponse": "auth.login_ex",
}

# Mapped models no method names (the server publishes them as dict[str, Any]), read as outputs.
PUBLISHED_AS_DICT = {
    verdict_models.Verdict: "TenGigBenchOutcome.verdict and TenGigResultsEntry.verdict are dict[str, Any], "
                            "filled with Verdict.model_dump(mode='json')",
    verdict_models.DirectionVerdict: "inside Verdict",
    verdict_models.Ceiling: "inside Verdict",
    verdict_models.Advice: "inside Verdict",
    suite.BenchReport: "TenGigBenchOutcome.report and TenGigResultsEntry.results are dict[str, Any], filled with "
                       "BenchReport.model_dump(mode='json')",
    suite.ClientReport: "inside BenchReport",
    smb_results.SmbConcurrentResult: "inside BenchReport",
    smallfiles_results.SmallFilesResult: "inside BenchReport",
    smallfiles_results.SmallSizeResult: "inside BenchReport",
    smallfiles_results.SmallOpResult: "inside BenchReport",
    smallfiles_results.Percentiles: "inside BenchReport",
    smb_results.ConcurrentDirection: "inside SmbConcurrentResult",
    smb_results.SmbMultichannel: "inside SmbBenchResult (ClientReport.smb)",
    stats.Repeated: "inside ConcurrentDirection",
    pool_phase.PoolBenchResult: "inside BenchReport",
    scaling.ScalingResult: "inside PoolBenchResult",
    scaling.ScalingSweep: "inside ScalingResult",
    scaling.ScalingStep: "inside ScalingSweep",
    pool_members.MemberLoad: "inside ScalingResult",
}

# Models tengig.* methods take or return at top level that no TS name mirrors: only methods the panel
# does not call.
UNMAPPED_UNUSED = {
    TenGigBenchRequest: "tengig.bench.pool, .network and .smb (the panel runs tengig.bench.run)",
    TenGigBenchSessionJoinInfo: "tengig.bench.session.*: called by desktops that join a run, never by the panel",
    TenGigBenchSessionJoined: "tengig.bench.session.*: called by desktops that join a run, never by the panel",
    TenGigBenchSessionSubmission: "tengig.bench.session.*: called by desktops that join a run, never by the panel",
}

# (where, field) -> why TS leaves a server field out.
OMITTED: dict[tuple[str, str], str] = {
    ("PoolReport", name): "the panel reads the pool's thread sweep only (its phases are in the text report)"
    for name in ("arc_max_bytes", "arc_source", "bytes_written", "cache_policy", "compressratio", "dataset",
                 "dataset_properties", "phases", "preset", "recordsize_bytes", "swept", "unknowns", "working_set_bytes")
}

# (where, prop) -> why TS's type differs from the schema's (nullability and optionality still checked).
WIDENED = {
    ("MeshPortRequest", "speed_bps"): "the server also accepts '10g' and the like (a BeforeValidator the "
                                      "JSON schema does not show)",
    ("LaggRequest", "client_link_bps"): "as MeshPortRequest.speed_bps",
}


def server_methods() -> list[Method]:
    """Every method tengig's own host serves: the plugin's and the host-only ones (tengig.bench.session)."""
    return [Method(m.full_name, m.accepts, m.returns) for service in build_plan(default_services())
            for m in service.methods]


def model_directions(methods: list[Method]) -> dict:
    found = directions(methods)
    for model in PUBLISHED_AS_DICT:
        found.setdefault(model, set()).add(OUTPUT)
    return found


# types.ts changed as a panel developer might, for the tests below that show the check fails on drift:
# each a list of (the text, what replaces it), each text found once.
RENAMED = [("export interface RunSummary {\n  id: number\n", "export interface RunSummary {\n  run_id: number\n")]
LOOSENED = [
    ("export type RunKind = 'pool' | 'net' | 'smb' | 'smallfiles' | 'all'", "export type RunKind = 'pool' | 'net' | 'smb'"),
    ("  delta: number\n  delta_percent: number | null\n", "  delta: number\n  delta_percent: number\n"),
    ("  streams?: number\n", "  streams: number\n"),
]
DROPPED = [("export interface RunSummary {\n  id: number\n", "export interface RunSummary {\n")]


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict[str, dict]:
    """types.ts ("types") and each changed copy above (by its name), read by one run of the compiler."""
    folder = tmp_path_factory.mktemp("types-drift")
    copies = {"types": TYPES_TS}
    for name, edits in (("renamed", RENAMED), ("loosened", LOOSENED), ("dropped", DROPPED)):
        source = TYPES_TS.read_text()
        for old, new in edits:
            assert source.count(old) == 1, old
            source = source.replace(old, new)
        copies[name] = folder / name / "types.ts"
        copies[name].parent.mkdir()
        copies[name].write_text(source)
    return dict(zip(copies, export_ts_files(list(copies.values()))))


@pytest.fixture(scope="module")
def ts_types(exported) -> dict:
    return exported["types"]


def used_methods() -> list[Method]:
    names = panel_methods(METHODS_TS)
    return [m for m in server_methods() if m.name in names]


def test_every_tengig_method_the_panel_names_exists_on_the_server():
    names = panel_methods(METHODS_TS)
    assert names, "methods.ts names no tengig.* method: the pattern no longer matches"
    assert sorted(names - {m.name for m in server_methods()}) == []


def test_every_exported_ts_name_is_mapped_or_says_why_not(ts_types):
    assert set(MAPPING).isdisjoint(NOT_MIRRORED)
    assert sorted(set(ts_types) - set(MAPPING) - set(NOT_MIRRORED)) == []
    assert sorted((set(MAPPING) | set(NOT_MIRRORED)) - set(ts_types)) == []


def test_every_top_level_model_of_a_panel_method_is_mapped():
    mapped = set(MAPPING.values())
    used = {model for m in used_methods() for model in top_level_models(m.args, m.result)}
    every = {model for m in server_methods() for model in top_level_models(m.args, m.result)}
    assert sorted(model.__name__ for model in used - mapped) == []
    assert sorted(model.__name__ for model in every - mapped) == sorted(m.__name__ for m in UNMAPPED_UNUSED)


def test_every_mapped_model_is_reached_by_a_panel_method_or_published_as_a_dict():
    reached = directions(used_methods())
    models = {v for v in MAPPING.values() if isinstance(v, type)}
    assert sorted(m.__name__ for m in models - set(reached) - set(PUBLISHED_AS_DICT)) == []
    assert sorted(m.__name__ for m in set(PUBLISHED_AS_DICT) & set(reached)) == []


def test_types_ts_agrees_with_the_server(ts_types):
    found = check_types(ts_types, MAPPING, model_directions(used_methods()), omitted=OMITTED, widened=WIDENED)
    assert found == [], "\n".join(found)


# --- the check fails on drift ----------------------------------------------------------------------

def test_a_renamed_ts_property_and_a_new_model_field_are_reported(exported):
    class TenGigTargetsEntry2(TenGigTargetsEntry):
        vendor: str | None = Field(description="A field the panel does not know yet.")

    mapping = {**MAPPING, "Target": TenGigTargetsEntry2}
    found = directions(used_methods())
    found[TenGigTargetsEntry2] = found[TenGigTargetsEntry]
    for model in PUBLISHED_AS_DICT:
        found.setdefault(model, set()).add(OUTPUT)

    assert check_types(exported["renamed"], mapping, found, omitted=OMITTED, widened=WIDENED) == [
        "RunSummary.id: a field of the server's model, missing from TS",
        "RunSummary.run_id: in TS, not a field of the server's model",
        "Target.vendor: a field of the server's model, missing from TS",
    ]


def test_nullability_optionality_and_literals_are_reported(exported):
    found = check_types(exported["loosened"], MAPPING, model_directions(used_methods()), omitted=OMITTED,
                        widened=WIDENED)
    assert "BenchRunRequest.streams: required in TS, but the field has a default" in found
    assert "MetricDelta.delta_percent: | null on the server, no null in TS" in found
    assert ('RunKind: literals "all" | "net" | "pool" | "smallfiles" | "smb" on the server, "net" | "pool" | "smb" '
            'in TS') in found


def test_an_omission_must_be_listed_and_a_stale_listing_is_reported(exported):
    omitted = {**OMITTED, ("RunSummary", "id"): "a test: the panel would not read it",
               ("MetricDelta", "unit"): "a test: stale, TS has it"}
    widened = {**WIDENED, ("MetricDelta", "delta"): "a test: stale, the types agree"}
    assert check_types(exported["dropped"], MAPPING, model_directions(used_methods()), omitted=omitted,
                       widened=widened) == [
        "MetricDelta.delta: listed as widened, but TS agrees with the server",
        "MetricDelta.unit: listed as omitted, but TS has it or the model does not",
    ]
