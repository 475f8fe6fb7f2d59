/**
 * Small files as the panel shows them (the run's smallfiles phase): per size, files/s through the share beside
 * the desktop's own disk (--disk), writes and reads, as bars on one scale per size (4 KiB and 1 MiB files are
 * thousands of files/s apart), with each file's time (p50 / p99) and the verdict's small-file line.
 * Pure: a figure that was not measured says so, it never becomes 0.
 */
import type { BenchReport, Percentiles, SmallOpResult, SmallSizeResult } from '../../api/types'
import { formatMBps } from '../../lib/format'

export interface SmallFilesBar {
  where: 'share' | 'own disk'
  op: 'write' | 'read'
  /** "310 files/s (1.3 MB/s)" or "not measured". */
  value: string
  /** 0-100: share of the widest bar of this size. */
  widthPercent: number
  /** "p50 0.81 ms, p99 2.40 ms per file" or "". */
  latency: string
}

export interface SmallFilesSizeRow {
  size: number
  sizeText: string
  count: number
  bars: SmallFilesBar[]
}

export interface SmallFilesView {
  client: string
  line: string | null
  engine: string
  roundTrip: string
  sizes: SmallFilesSizeRow[]
  note: string | null
}

/** 4096 -> "4 KiB", 1048576 -> "1 MiB", 1000 -> "1000 B" (the sizes the test asks for, exactly). */
export function sizeText(bytes: number): string {
  if (bytes >= 2 ** 20 && bytes % 2 ** 20 === 0) return `${bytes / 2 ** 20} MiB`
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes} B`
}

/** 9800 -> "9,800 files/s"; 3.4 -> "3.4 files/s". */
export function filesPerSecond(value: number): string {
  return value >= 10 ? `${Math.round(value).toLocaleString('en-US')} files/s` : `${value.toPrecision(2)} files/s`
}

function latencyText(p: Percentiles | null | undefined): string {
  return p ? `p50 ${p.p50_ms.toFixed(2)} ms, p99 ${p.p99_ms.toFixed(2)} ms per file` : ''
}

function bars(size: SmallSizeResult): SmallFilesBar[] {
  const find = (ops: SmallOpResult[] | null | undefined, op: string) => (ops ?? []).find((o) => o.op === op) ?? null
  const cells: { where: 'share' | 'own disk'; op: 'write' | 'read'; o: SmallOpResult | null }[] = []
  for (const op of ['write', 'read'] as const) {
    cells.push({ where: 'share', op, o: find(size.ops, op) })
    if (size.own_disk) cells.push({ where: 'own disk', op, o: find(size.own_disk, op) })
  }
  const widest = Math.max(0, ...cells.map((c) => c.o?.files_per_s ?? 0))
  return cells.map(({ where, op, o }) => ({
    where,
    op,
    value: o ? `${filesPerSecond(o.files_per_s)} (${formatMBps(o.bytes_per_s)})` : 'not measured',
    widthPercent: o && widest > 0 ? (100 * o.files_per_s) / widest : 0,
    latency: latencyText(o?.per_file),
  }))
}

/** One view per desktop that ran the small-file test. */
export function smallFilesViews(report: BenchReport | null): SmallFilesView[] {
  return (report?.clients ?? [])
    .filter((c) => c.small_files)
    .map((c) => {
      const s = c.small_files!
      return {
        client: c.client,
        line: c.verdict?.small_files ?? null,
        engine: s.sizes[0]?.engine ?? '',
        roundTrip: s.round_trip_ms == null ? 'round trip not measured' : `round trip ${s.round_trip_ms.toFixed(3)} ms (the NAS's ping)`,
        sizes: s.sizes.map((z) => ({ size: z.size, sizeText: sizeText(z.size), count: z.count, bars: bars(z) })),
        note: s.note ?? s.own_disk_note ?? null,
      }
    })
}
