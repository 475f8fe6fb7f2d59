/**
 * The shapes the panel reads and sends, mirroring tengig's pydantic API models
 * (middleware/tengig/api/models/*.py, verdict/models.py, mesh/models.py).
 * Storage and SMB speeds are bytes/s, link speeds bits/s, times epoch seconds.
 */

export type Direction = 'read' | 'write'
export type Component = 'pool' | 'link' | 'network' | 'smb'
export type Provenance = 'measured' | 'estimated'
export type RunKind = 'pool' | 'net' | 'smb' | 'smallfiles' | 'all'
export type RunStatus = 'running' | 'success' | 'failed' | 'aborted'
export type Preset = 'quick' | 'full'

export interface Target {
  name: string
  title: string
  read_bytes_per_s: number
  write_bytes_per_s: number | null
  source: string
  builtin: boolean
}

export interface NewTarget {
  name: string
  title: string
  read_bytes_per_s: number
  write_bytes_per_s?: number | null
  source: string
}

export interface Ceiling {
  component: Component
  direction: Direction
  bytes_per_s: number
  provenance: Provenance
  label: string
  /** Each run's figure when the measurement was repeated (bytes_per_s is their median); absent in older runs. */
  runs?: number[]
}

export interface DirectionVerdict {
  direction: Direction
  smb_bytes_per_s: number | null
  target_bytes_per_s: number | null
  beats_target: boolean | null
  margin_percent: number | null
  bottleneck: Component | null
  ceilings: Ceiling[]
  /** Claims the runs cannot settle (another ceiling or the target inside their spread), in words. */
  close_calls?: string[]
}

export interface Advice {
  rule: string
  severity: 'info' | 'warning' | 'critical'
  text: string
}

export interface Verdict {
  target: Target
  directions: DirectionVerdict[]
  advice: Advice[]
  summary: string
  /** Small files in one line (files/s at the smallest size, beside the own disk, and what holds them back). */
  small_files?: string | null
}

/** A measurement repeated (bench/stats.py Repeated): every run's value and their median. */
export interface Repeated {
  values: number[]
  median: number
  cv_percent: number | null
  stable: boolean
  planned?: number | null
  stopped_because?: string | null
}

/** One direction of every client copying at once (bench/phases/smb_results.py ConcurrentDirection), bytes/s. */
export interface ConcurrentDirection {
  direction: string
  per_client: Record<string, Repeated>
  aggregate: Repeated
  wire_bytes: Record<string, number[]>
  start_spread_seconds?: number[] | null
  arc_hit_ratio?: number | null
}

/** SMB with every client at once (bench/phases/smb_results.py SmbConcurrentResult). */
export interface SmbConcurrentResult {
  engine: string
  clients: string[]
  file_size: number
  read: ConcurrentDirection
  write: ConcurrentDirection
  cache_policy?: unknown
  bytes_written?: number | null
  unknowns?: string[]
}

/**
 * One client's part of a run (bench/run/suite.py ClientReport); the panel reads its name and verdict, and the
 * verdict against the desktop's own disk when it measured it (tengig client join --disk).
 */
export interface ClientReport {
  client: string
  joined?: Record<string, unknown> | null
  nas_port?: unknown
  link?: unknown
  network?: unknown[]
  network_skipped?: string[]
  link_downs?: number | null
  smb?: unknown
  verdict?: Verdict | null
  own_disk?: unknown
  own_disk_note?: string | null
  small_files?: SmallFilesResult | null
  small_files_session?: unknown
  own_disk_verdict?: Verdict | null
  /** Why this desktop's part ended early (it left mid-run); its figures so far are kept, no verdict. */
  lost?: string | null
}

/** SMB multichannel for one client's copies, as the NAS read it (bench/phases/smb_results.py SmbMultichannel). */
export interface SmbMultichannel {
  enabled: boolean | null
  read_from?: string | null
  channels?: number | null // the most channels the session held; null: this Samba lists none (before 4.18)
  nas_addresses?: string[]
  client_channels?: number | null // what a Windows desktop said (Get-SmbMultichannelConnection)
  client_report?: string | null
}

/** One step of the pool's thread sweep (bench/phases/scaling.py ScalingStep): bytes/s over all threads. */
export interface ScalingStep {
  threads: number
  bytes_per_s: number
  bytes: number
  gain_percent?: number | null
  arc_hit_ratio?: number | null
}

export interface ScalingSweep {
  direction: Direction
  steps: ScalingStep[]
  best_threads: number
  best_bytes_per_s: number
  stopped: string
}

/** What one pool member did over the sweep (bench/phases/pool_members.py MemberLoad). */
export interface MemberLoad {
  name: string
  read_bytes_per_s?: number | null
  write_bytes_per_s?: number | null
  busy_percent?: number | null
  wait_ms?: number | null
  wait_source?: string | null
}

export interface ScalingResult {
  test?: string
  cores: number
  bytes_per_step: number
  bytes_written?: number
  sweeps: ScalingSweep[]
  members: MemberLoad[]
  dragging?: string | null
  member_reads?: { name: string; device: string; bytes: number; bytes_per_s: number }[]
}

/** The pool's part of a run (bench/phases/pool.py PoolBenchResult): what the panel reads (the rest: OMITTED in
 * tests/ui/test_types_drift.py). */
export interface PoolReport {
  pool: string
  scaling?: ScalingResult | null
}

/** Times of single files, ms (bench/phases/smallfiles_results.py Percentiles). */
export interface Percentiles {
  count: number
  p50_ms: number
  p95_ms: number
  p99_ms: number
}

export type SmallOp = 'write' | 'read' | 'stat' | 'delete'

/** One batch of small files (SmallOpResult): files/s, bytes/s, each file's time. */
export interface SmallOpResult {
  op: SmallOp
  files: number
  bytes: number
  seconds: number
  files_per_s: number
  bytes_per_s: number
  per_file?: Percentiles | null
  open?: Percentiles | null
  close?: Percentiles | null
  smbd_cpu_percent?: number | null
  nas_note?: string | null
}

/** One size of the small-file test (SmallSizeResult), through the share and on the desktop's own disk. */
export interface SmallSizeResult {
  size: number
  count: number
  engine: string
  ops: SmallOpResult[]
  nas_files: number
  nas_bytes: number
  nas_files_left: number
  write_back?: string | null
  own_disk?: SmallOpResult[] | null
}

/** The small-file test of one desktop (bench/phases/smallfiles_results.py SmallFilesResult). */
export interface SmallFilesResult {
  client: string
  server: string
  sizes: SmallSizeResult[]
  round_trip_ms?: number | null
  own_disk_note?: string | null
  note?: string | null
  bytes_written?: number
}

/** One size a run asks the small-file test for (tengig.bench.run's request.small_files). */
export interface SmallFilesSize {
  size: number
  count: number
}

/**
 * A run's measurements (bench/run/suite.py BenchReport): tengig.bench.run's report and tengig.results.get's
 * results. With several clients, smb_concurrent and aggregate_verdict are all of them at once.
 */
export interface BenchReport {
  system: string
  kind: RunKind
  preset: Preset
  target: string
  pool?: PoolReport | null
  clients: ClientReport[]
  smb_concurrent?: SmbConcurrentResult | null
  aggregate_verdict?: Verdict | null
  bytes_written?: number | null
  /** Scratch datasets an earlier run left, removed before this one measured. */
  swept?: string[]
  /** This run's scratch datasets still there at its end, each with why; the next run removes them. */
  left_behind?: string[]
}

/** Where a benchmark measures (tengig.bench.run's request.system). */
export type BenchSystemName = 'local' | 'truenas' | 'lab'

/** tengig.bench.systems: each system with whether it can be measured now and why. */
export interface BenchSystemState {
  name: BenchSystemName
  usable: boolean
  reason: string
  /** Desktops can join a run there through this API (tengig's own host, system local). */
  joins: boolean
}

/** tengig.bench.kit: the join script for a desktop without tengig (Windows). */
export interface BenchKitRequest {
  os?: 'windows'
  nas: string
  token: string
  share: string
}

export interface BenchKit {
  filename: string
  text: string
  how: string
}

export interface BenchRunRequest {
  system?: BenchSystemName | null
  kind?: RunKind
  target?: string
  clients?: string[]
  preset?: Preset
  repeats?: number | null
  streams?: number
  net_seconds?: number | null
  working_set?: number | null
  smb_file?: number | null
  pool?: string | null
  join?: number
  join_timeout?: number
  share?: string | null
  scaling?: 'auto' | 'on' | 'off' | 'only'
  member_reads?: boolean
  member_read_bytes?: number
  small_files?: SmallFilesSize[] | null
}

export interface BenchOutcome {
  run_id: number
  summary: string
  verdict: Verdict | null
  report: Record<string, unknown>
}

export interface RunEntry {
  id: number
  started: number
  finished: number | null
  kind: RunKind
  status: RunStatus
  inputs: Record<string, unknown>
  results: Record<string, unknown> | null
  verdict: Verdict | null
  error: string | null
  environment: Record<string, unknown> | null
  raw: unknown[]
}

export interface ResultsQueryOptions {
  kind?: RunKind | null
  status?: RunStatus | null
  limit?: number
  offset?: number
  include_raw?: boolean
}

export interface RunSummary {
  id: number
  kind: RunKind
  status: RunStatus
  started: number
}

export interface MetricDelta {
  a: number
  b: number
  delta: number
  delta_percent: number | null
  unit: string
}

/** One ceiling of one verdict's chain in both runs (tengig.results.compare). */
export interface CeilingChange {
  /** 'aggregate' (all clients at once) or a client's name. */
  scope: string
  direction: Direction
  component: Component
  /** bytes/s; null: absent in that run. */
  a: number | null
  b: number | null
  delta_percent: number | null // null when either is absent or a is 0
  /** Changed by at least 5%, or present in one run only. */
  moved: boolean
  bottleneck_a: boolean
  bottleneck_b: boolean
}

/** One direction of a fix's prediction against its re-measure (tengig.results.compare's fix). */
export interface FixLinkCheck {
  direction: Direction
  measured_bytes_per_s: number
  predicted_bytes_per_s: number
  /** The lowest ceiling left before SMB's share of it on this NAS; null: an older record. */
  bound_bytes_per_s?: number | null
  measured_after_bytes_per_s: number
  bound: Component
  off_percent: number
  within: boolean
}

/** The fix that links two compared runs: run b measured SMB again after a fix made from run a's verdict. */
export interface FixLink {
  fix_id: number
  name: string
  state: 'applying' | 'kept' | 'rolled-back' | 'undone' | 'failed'
  before_run_id: number
  after_run_id: number
  setting: string
  from_value: string | null
  to_value: string | null
  predictions: FixLinkCheck[]
  gains: string[]
  why: string
}

export interface Comparison {
  a: RunSummary
  b: RunSummary
  metrics: Record<string, MetricDelta>
  only_in_a: string[]
  only_in_b: string[]
  environment: Record<string, { a: unknown; b: unknown }>
  ceilings: CeilingChange[]
  /** Which ceilings moved (and bottlenecks that changed), one line each, in the server's words. */
  moved: string[]
  /** The fix that links the two runs; null: none. */
  fix?: FixLink | null
}

// --- fixes (tengig.fix.plan|apply|query|undo): a change of the NAS answering the verdict's advice ---

export type FixPlatform = 'truenas' | 'system'
export type FixSettingKind = 'smb' | 'dataset' | 'interface'
export type FixGainVerdict = 'gain' | 'loss' | 'within-spread'
export type FixState = 'kept' | 'rolled-back' | 'undone' | 'failed'
/** A fix's state in the results database: also 'applying' (or stopped mid-way: undo puts it back). */
export type FixRecordState = 'applying' | FixState

export interface FixSetting {
  platform: FixPlatform
  kind: FixSettingKind
  /** What it is set on: 'smb.conf [global]', 'smb.config', a dataset, an interface. */
  object: string
  /** The setting as the platform names it ('server smb encrypt', 'sync', 'mtu'). */
  key: string
}

export interface FixPrediction {
  direction: Direction
  /** bytes/s: SMB's figure in the run. */
  measured_bytes_per_s: number
  /** bytes/s: what the other ceilings allow once the fix's bound is gone. */
  predicted_bytes_per_s: number
  bound: Component
  bound_label: string
  /** bytes/s: that ceiling before SMB's share of it on this NAS; null: the prediction is the ceiling itself. */
  bound_bytes_per_s?: number | null
  /** SMB's share of that ceiling that this NAS's earlier kept fixes measured; null: none yet. */
  smb_share?: number | null
  why: string
}

export interface FixEntry {
  name: string
  /** The advice rule it answers. */
  rule: string
  /** The desktop whose verdict gave that advice. */
  client: string
  setting: FixSetting
  run_read: string
  /** Its value on the NAS now; null: not read. */
  from_value: string | null
  to_value: string
  /** The change as a person would make it there. */
  call: string
  undo_call: string
  phases: 'smb'[]
  directions: Direction[]
  predictions: FixPrediction[]
  /** Set when this fix's predictions missed too often on this NAS: its number is not given. */
  gain_unknown?: string | null
  text: string
}

export interface FixWords {
  rule: string
  client: string | null
  why: string
}

export interface FixPlan {
  run_id: number
  fixes: FixEntry[]
  words: FixWords[]
}

export interface FixApplyRequest {
  run_id: number
  fix?: string | null
  confirm?: boolean
  join_timeout?: number | null
  /** true to apply it while the NAS is busy with something else. */
  force_busy?: boolean
  /** A network fix on a TrueNAS: seconds of its rollback timer (5-600, default 60). */
  checkin_timeout?: number
}

export interface FixGain {
  direction: Direction
  /** bytes/s, each copy. */
  before: number[]
  after: number[]
  before_median: number
  after_median: number
  gain_percent: number
  verdict: FixGainVerdict
  /** The chance of so clean a separation by luck alone, %. */
  chance_percent: number
  text: string
}

/** One direction's prediction against the re-measure (tengig.fix.apply's outcome, the fixes table). */
export interface FixPredictionCheck {
  direction: Direction
  measured_bytes_per_s: number
  predicted_bytes_per_s: number
  bound_bytes_per_s: number
  measured_after_bytes_per_s: number
  bound: 'pool' | 'link' | 'network' | 'smb'
  off_percent: number
  within: boolean
}

export interface FixOutcome {
  fix_id: number
  run_id: number
  after_run_id: number | null
  fix: FixEntry
  previous: string
  state: FixState
  gains: FixGain[]
  predictions: FixPredictionCheck[]
  why: string
}

/** One fix as the results database keeps it (tengig.fix.query): the run it was made from and its re-measure. */
export interface FixRecord {
  id: number
  run_id: number
  after_run_id: number | null
  name: string
  state: FixRecordState
  applied: number
  finished: number | null
  fix: FixEntry
  previous: string
  gains: FixGain[]
  why: string | null
  undone: string | null
}

export type JobState = 'WAITING' | 'RUNNING' | 'SUCCESS' | 'FAILED' | 'ABORTED'

export interface JobProgress {
  percent: number | null
  description: string | null
  extra: unknown
}

/** One job as core.get_jobs events carry it (docs/truenas-api.md §2). */
export interface Job {
  id: number
  method: string
  arguments?: unknown[]
  progress: JobProgress
  state: JobState
  result: unknown
  error: string | null
  exception?: string | null
  exc_info?: { type?: string | null; errno?: number | null; extra?: unknown; repr?: string | null } | null
  time_started?: unknown
  time_finished?: unknown
  abortable?: boolean
}

// --- mesh (middleware/tengig/mesh/request.py and models.py) ---

export type HostKind = 'truenas-scale' | 'truenas-core' | 'linux' | 'freebsd' | 'windows'

export interface MeshPortRequest {
  name: string
  speed_bps: number | string
  card?: string | null
  peer?: string | null
}

export interface MeshHostRequest {
  name: string
  kind: HostKind
  ports: MeshPortRequest[]
}

export interface MeshRequest {
  hosts: MeshHostRequest[]
  existing_networks?: string[]
  options?: {
    address_pool?: string
    prefix?: 24 | 30 | 31
    name_suffix?: string
    mtu?: number
    prices?: { currency?: string; nic_port?: number; dac_cable?: number; switch?: number; switch_ports?: number }
  }
}

export interface CableEnd {
  host: string
  port: string
  card: string | null
  address: string
}

export interface MeshCable {
  id: string
  a: CableEnd
  b: CableEnd
  speed_bps: number
  subnet: string
  prefix: number
  mtu: number
  goodput_bps: number
}

export interface HostsEntry {
  address: string
  name: string
  peer: string
  cable: string
}

export interface HostPort {
  port: string
  card: string | null
  speed_bps: number
  cable: string | null
  peer: string | null
  address: string | null
}

export interface HostPlan {
  name: string
  kind: HostKind
  ports: HostPort[]
  hosts_entries: HostsEntry[]
}

export interface DiagramNode {
  id: string
  label: string
  kind: HostKind
  x: number
  y: number
}

export interface DiagramEdge {
  id: string
  source: string
  target: string
  source_port: string
  target_port: string
  label: string
  speed_bps: number
}

export interface PlanNote {
  code: string
  severity: 'info' | 'warning'
  host: string | null
  text: string
}

export interface MeshPlan {
  options: Record<string, unknown>
  hosts: HostPlan[]
  cables: MeshCable[]
  labels: unknown[]
  labels_text: string
  labels_csv: string
  counts: { hosts: number; cables: number; ports_used: number; ports_spare: number; dual_port_cards_to_buy: number }
  cost: { currency: string; ports: number; port_price: number; cables: number; cable_price: number; total: number; estimated_prices: string[] }
  break_even: {
    rows: { hosts: number; mesh_ports: number; mesh_cables: number; mesh_cost: number; switch_cost: number; switch_fits: boolean }[]
    summary: string
    switch_cheaper_from: number | null
  }
  diagram: { nodes: DiagramNode[]; edges: DiagramEdge[] }
  notes: PlanNote[]
}

export interface RenderedFile {
  path: string
  content: string
  how: 'replace' | 'marked-block' | 'run'
  mode?: string
}

export interface RenderedConfig {
  host: string
  flavour: 'truenas-api' | 'netplan' | 'networkd' | 'ifupdown' | 'freebsd-rc' | 'powershell'
  files: RenderedFile[]
  api_calls: { method: string; params: unknown[] }[]
  warnings: string[]
}

// --- mesh apply and verify (middleware/tengig/api/models/mesh.py, mesh/apply_linux.py, mesh/verify.py) ---

export interface MeshWhere {
  system?: 'lab' | 'local'
  hosts?: string[]
}

/** Keep the change only if tengig.*.checkin confirms it in time (progress.extra.checkin counts down). */
export interface CheckinOptions {
  wait_for_checkin?: boolean
  checkin_timeout?: number
}

export type MeshApplyOptions = Omit<MeshWhere, 'system'> & CheckinOptions & { system?: 'lab' | 'local' | 'truenas'; confirm_session_interface?: boolean }

/** progress.extra.checkin of an apply job that waits for a person's confirmation. */
export interface CheckinProgress {
  waiting: boolean
  seconds_left: number
  timeout: number
  method: string
}

export interface MeshVerifyOptions extends MeshWhere {
  measure_throughput?: boolean
  seconds?: number
  min_percent?: number
  /** Seconds of TCP ramp-up left out of each iperf3 test, 0..10. */
  omit?: number
  /** System 'local': peers to wait for (1..16), each joining with --name HOST over its cable. */
  join?: number | null
  /** Seconds to wait for them to join, 10..3600. */
  join_timeout?: number
}

export interface MeshApplyResult {
  host: string
  changed: boolean
  changes: string[]
  persistent: boolean
  hosts_file: string | null
}

export interface LinkCheck {
  cable: string
  host: string
  port: string
  peer: string
  peer_address: string
  ping_ok: boolean
  rtt_ms: number | null
  df_size: number
  df_ok: boolean
  name: string
  resolves_to: string[]
  name_ok: boolean
  problems: string[]
}

export interface PairThroughput {
  cable: string
  sender: string
  receiver: string
  goodput_bps: number
  ceiling_bps: number
  percent_of_ceiling: number
  reaches_ceiling: boolean
  /** Bytes the receiver read in the test (with desktops that join). */
  received_bytes?: number | null
  /** With desktops that join: what checked the figure besides the iperf3 client (the NAS's port counters and
   *  its own server, or the other desktop's iperf3 server). */
  witness?: string | null
}

export interface AsymmetricPair {
  cable: string
  a_to_b_bps: number
  b_to_a_bps: number
  difference_percent: number
}

export interface MeshVerifyResult {
  ok: boolean
  links: LinkCheck[]
  matrix: PairThroughput[]
  asymmetric: AsymmetricPair[]
  min_percent: number
  problems: string[]
  /** Pairs of the matrix not measured, each with why (with peers that join: a cable to a peer that did not join). */
  unmeasured?: string[]
}

// --- NIC inventory and LAGG (middleware/tengig/nic/models.py, lagg/request.py, lagg/models.py, lagg/render.py) ---

/** tengig.nic.query's options: which machine's ports. */
export interface NicQueryOptions {
  system?: 'lab' | 'local' | 'truenas'
  host?: string | null
  include_virtual?: boolean
}

export interface Nic {
  name: string
  kind: 'physical' | 'virtual' | 'bond' | 'bridge' | 'vlan' | 'loopback'
  mac: string | null
  link: 'up' | 'down' | 'unknown'
  speed_bps: number | null
  duplex: 'full' | 'half' | null
  mtu: number
  driver: string | null
  pci_slot: string | null
  card: string | null
  addresses: string[]
  in_use_by: string | null
  carries_session: boolean
  link_flaps: number | null
  flap_events?: unknown[]
}

export type LaggPlatform = 'truenas-scale' | 'truenas-core' | 'linux' | 'freebsd'
export type LaggTopology = 'lacp-switch' | 'unmanaged-switch' | 'switchless-peer' | 'many-clients'
export type LaggGoal = 'aggregate-many-clients' | 'one-client-faster' | 'failover'
export type LagProtocol = 'LACP' | 'FAILOVER' | 'LOADBALANCE' | 'ROUNDROBIN' | 'NONE'

export interface LaggRequest {
  nics: Nic[]
  platform: LaggPlatform
  topology: LaggTopology
  goal: LaggGoal
  client_count?: number
  client_link_bps?: number | string | null
  flows?: number | null
  options?: {
    name?: string | null
    protocol?: LagProtocol | null
    members?: string[] | null
    member_count?: number | null
    mtu?: number
    address?: string | null
    card_limits_bps?: Record<string, number>
    confirm_session_interface?: boolean
    clear_member_config?: boolean
  }
}

export interface LaggMember {
  name: string
  card: string | null
  speed_bps: number
  goodput_bps: number
  clear_config: string[]
  carries_session: boolean
}

export interface ExpectedThroughput {
  direction: Direction
  flows: number
  bps: number
  low_bps: number
  multiple: number
  reason: string
}

export interface LaggPlan {
  platform: LaggPlatform
  topology: LaggTopology
  goal: LaggGoal
  name: string
  protocol: LagProtocol
  protocol_native: string
  protocol_reason: string
  members: LaggMember[]
  xmit_hash_policy: 'LAYER2' | 'LAYER2+3' | 'LAYER3+4' | null
  lacpdu_rate: 'SLOW' | 'FAST' | null
  mtu: number
  address: string | null
  flows: number
  throughput: ExpectedThroughput[]
  alternatives: { code: string; title: string; read_bps: number | null; write_bps: number | null; why: string }[]
  skipped: { name: string; reason: string }[]
  notes: { code: string; severity: 'info' | 'warning'; text: string }[]
}

export interface ApiCall {
  method: string
  params: unknown[]
}

export interface RenderedLagg {
  platform: string
  flavour: 'truenas-api' | 'iproute2' | 'freebsd'
  api_calls: ApiCall[]
  commit: ApiCall | null
  checkin: ApiCall | null
  undo_calls: ApiCall[]
  commands: string[][]
  undo: string[][]
  files: RenderedFile[]
}

export interface LaggValidation {
  plan: LaggPlan
  rendered: RenderedLagg
}

// --- LAGG verify (middleware/tengig/api/models/lagg.py, lagg/measure.py, lagg/verify.py) ---

/** tengig.lagg.verify's options; the tests run between a client of the system (the lab) and its NAS. */
/** tengig.lagg.apply options (middleware/tengig/api/models/lagg.py). */
export interface LaggApplyOptions extends CheckinOptions {
  system?: 'local' | 'truenas'
  probe_address?: string | null
  confirm_session_interface?: boolean
}

export interface LaggApplied {
  name: string
  ran: string[][]
  api_calls: string[]
}

export interface LaggVerifyOptions {
  /** 'lab': the lab drives both ends; 'local' (or 'truenas' where tengig runs on it): desktops join. */
  system?: 'lab' | 'local' | 'truenas'
  /** Desktops to wait for (1..16), systems local and truenas. */
  join?: number | null
  /** Seconds to wait for them to join, 10..3600. */
  join_timeout?: number
  /** With join: the N of each desktop's N-flow tests (default: the plan's many-flow count). */
  streams?: number | null
  /** The host running the iperf3 client (the lab: desk or lab); default: the system's first client. */
  client?: string | null
  /** The NAS's address on the LAGG; default: the plan's, else the NAS's address on the client's link. */
  lagg_address?: string | null
  /** The client's address the tests are bound to; needed with lagg_address. */
  client_address?: string | null
  /** Measured seconds per test (4 tests: read/write x 1/N flows; with join 4 per desktop and 2 at once), 1..120. */
  seconds?: number
  /** Seconds of TCP ramp-up left out of each test, 0..10. */
  omit?: number
}

export interface LaggFlowResult {
  direction: Direction
  flows: number
  /** Receiver-side goodput, bits/s. */
  bps: number
}

export interface LaggMemberBytes {
  name: string
  rx_bytes: number
  tx_bytes: number
}

export interface LaggCounterWindow {
  direction: Direction
  flows: number
  members: LaggMemberBytes[]
}

export interface LaggMeasurements {
  results: LaggFlowResult[]
  counters: LaggCounterWindow[]
  tolerance_percent: number
}

export type LaggComparisonStatus = 'as-expected' | 'above' | 'low-end' | 'below'

export interface LaggComparison {
  direction: Direction
  flows: number
  measured_bps: number
  expected_bps: number
  low_bps: number
  percent_of_expected: number
  status: LaggComparisonStatus
  reason: string
}

export interface LaggMemberShare {
  name: string
  /** Bytes in the test's direction (tx for read, rx for write). */
  bytes: number
  /** Fraction of all members' bytes, 0..1. */
  share: number
}

export interface LaggBalance {
  direction: Direction
  flows: number
  shares: LaggMemberShare[]
  /** Busiest over quietest member's bytes; null when a member moved nothing. */
  skew: number | null
  cv: number
  /** Members that carried under 1% of the bytes. */
  idle: string[]
}

export interface LaggVerdict {
  comparisons: LaggComparison[]
  balance: LaggBalance[]
  summary: string
}

export interface LaggVerification {
  client: string
  nas: string
  lagg_address: string
  measurements: LaggMeasurements
  verdict: LaggVerdict
}

/** One joined desktop's tests alone (tengig.lagg.verify with join). */
export interface LaggDesktopTests {
  client: string
  client_address: string
  nas_address: string
  /** The NAS's interface holding that address: the LAGG, or (emulated) a member. */
  nas_port: string
  measurements: LaggMeasurements
  verdict: LaggVerdict
}

/** Every joined desktop at once: per direction the sum, bits/s, against the plan. */
export interface LaggTogetherTests {
  clients: string[]
  streams_each: number
  measurements: LaggMeasurements
  /** direction -> desktop -> its goodput, bits/s. */
  per_client_bps: Record<string, Record<string, number>>
  verdict: LaggVerdict
}

/** tengig.lagg.verify with desktops that join, on the NAS tengig runs on. */
export interface JoinedLaggVerification {
  nas: string
  lagg: string
  members: string[]
  /** What stood in for the bond where the NAS has none of the plan's name (the lab); null: a real bond. */
  emulated: string | null
  desktops: LaggDesktopTests[]
  together: LaggTogetherTests | null
  summary: string
}

// --- auth.login_ex (middlewared's AuthLoginEx models; tengig serve answers the same shapes) ---

/** The two ways the panel logs in, as TrueNAS's own login offers them. */
export type AuthMechanism = 'PASSWORD_PLAIN' | 'API_KEY_PLAIN'

export interface AuthPasswordPlain {
  mechanism: 'PASSWORD_PLAIN'
  username: string
  password: string
}

export interface AuthApiKeyPlain {
  mechanism: 'API_KEY_PLAIN'
  username: string
  api_key: string
}

export type AuthLoginData = AuthPasswordPlain | AuthApiKeyPlain

export interface AuthUserInfo {
  username: string
  privilege?: { roles?: string[] } | null
}

export interface AuthRespSuccess {
  response_type: 'SUCCESS'
  user_info: AuthUserInfo | null
  authenticator: 'LEVEL_1' | 'LEVEL_2'
}

export interface AuthRespAuthErr {
  response_type: 'AUTH_ERR'
}

export interface AuthRespExpired {
  response_type: 'EXPIRED'
}

export interface AuthRespOtpRequired {
  response_type: 'OTP_REQUIRED'
  username: string
}

export interface AuthRespRedirect {
  response_type: 'REDIRECT'
  urls: string[]
}

/** What auth.login_ex answers: only SUCCESS is logged in. */
export type AuthLoginExResponse = AuthRespSuccess | AuthRespAuthErr | AuthRespExpired | AuthRespOtpRequired | AuthRespRedirect
