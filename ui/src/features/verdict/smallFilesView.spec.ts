import { describe, expect, it } from 'vitest'
import type { BenchReport, SmallOpResult } from '../../api/types'
import { filesPerSecond, sizeText, smallFilesViews } from './smallFilesView'

function op(name: SmallOpResult['op'], filesPerS: number, size: number, p50 = 0.8, p99 = 2.4): SmallOpResult {
  return { op: name, files: 200, bytes: 200 * size, seconds: 200 / filesPerS, files_per_s: filesPerS,
    bytes_per_s: filesPerS * size, per_file: { count: 200, p50_ms: p50, p95_ms: p99, p99_ms: p99 }, smbd_cpu_percent: 40 }
}

const report = {
  system: 'local', kind: 'smallfiles', preset: 'quick', target: 'x',
  clients: [{
    client: 'desk',
    verdict: { target: { name: 'x', title: 'x', read_bytes_per_s: 1, write_bytes_per_s: 1, source: 's' }, directions: [],
      advice: [], summary: 's', small_files: 'copying 4 KiB files: 310 files/s (1.27 MB/s) vs 9,800 files/s on your own disk' },
    small_files: {
      client: 'desk', server: 'nas', round_trip_ms: 0.8, own_disk_note: null,
      sizes: [
        { size: 4096, count: 200, engine: 'smbclient', nas_files: 200, nas_bytes: 819200, nas_files_left: 0,
          ops: [op('write', 310, 4096), op('read', 620, 4096)], own_disk: [op('write', 9800, 4096), op('read', 4900, 4096)] },
        { size: 1048576, count: 8, engine: 'smbclient', nas_files: 8, nas_bytes: 8388608, nas_files_left: 0,
          ops: [op('write', 100, 1048576)], own_disk: null },
      ],
    },
  }, { client: 'other' }],
} as unknown as BenchReport

describe('smallFilesViews', () => {
  it('puts each size\'s files/s through the share beside the own disk, on that size\'s own scale', () => {
    const [view] = smallFilesViews(report)
    expect(view.client).toBe('desk')
    expect(view.line).toContain('310 files/s')
    expect(view.roundTrip).toBe("round trip 0.800 ms (the NAS's ping)")
    const [small, big] = view.sizes
    expect(small.sizeText).toBe('4 KiB')
    expect(small.bars.map((b) => `${b.where} ${b.op}`)).toEqual(['share write', 'own disk write', 'share read', 'own disk read'])
    expect(small.bars[0].value).toBe('310 files/s (1.3 MB/s)')
    expect(small.bars[1].widthPercent).toBe(100)
    expect(small.bars[0].widthPercent).toBeCloseTo((100 * 310) / 9800)
    expect(small.bars[0].latency).toBe('p50 0.80 ms, p99 2.40 ms per file')
    // a size without its own disk, and a read not measured: said, not drawn as 0 files/s
    expect(big.bars.map((b) => b.value)).toEqual(['100 files/s (104.9 MB/s)', 'not measured'])
    expect(big.bars[0].widthPercent).toBe(100)
  })

  it('shows nothing for a run without small files, and says sizes and rates exactly', () => {
    expect(smallFilesViews({ ...report, clients: [{ client: 'other' }] } as unknown as BenchReport)).toEqual([])
    expect(smallFilesViews(null)).toEqual([])
    expect([sizeText(4096), sizeText(65536), sizeText(1048576), sizeText(1000)]).toEqual(['4 KiB', '64 KiB', '1 MiB', '1000 B'])
    expect([filesPerSecond(9800), filesPerSecond(3.4)]).toEqual(['9,800 files/s', '3.4 files/s'])
  })
})
