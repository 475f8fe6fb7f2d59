import { describe, expect, it } from 'vitest'
import type { ScalingResult } from '../../api/types'
import { scalingView } from './scalingView'

const MB = 1e6
const sweep: ScalingResult = {
  cores: 8,
  bytes_per_step: 128 * MB,
  sweeps: [
    { direction: 'write', steps: [{ threads: 1, bytes_per_s: 90 * MB, bytes: 1 }], best_threads: 1, best_bytes_per_s: 90 * MB,
      stopped: "1 thread(s): the NAS's 1 cores, the most it runs: stopped" },
    { direction: 'read', steps: [
      { threads: 1, bytes_per_s: 100 * MB, bytes: 1 },
      { threads: 2, bytes_per_s: 180 * MB, bytes: 1, gain_percent: 80 },
      { threads: 4, bytes_per_s: 185.6 * MB, bytes: 1, gain_percent: 3.1 },
    ], best_threads: 4, best_bytes_per_s: 185.6 * MB, stopped: '4 threads: +3.1% over 2: stopped' },
  ],
  members: [
    { name: 'sdb', wait_ms: 6, busy_percent: 31, wait_source: 'zpool iostat -l' },
    { name: 'sdc', wait_ms: 41, busy_percent: 97, wait_source: 'zpool iostat -l' },
    { name: 'sdd', wait_ms: null, busy_percent: null },
  ],
  dragging: 'sdc: 41.0 ms average wait, the others 6.0 ms',
}

describe('scalingView', () => {
  it('draws MB/s per thread count, read first, with the step the sweep stopped at and the one the verdict used', () => {
    const v = scalingView(sweep)!
    expect(v.sweeps.map((s) => s.direction)).toEqual(['read', 'write'])
    const read = v.sweeps[0]
    expect(read.bars.map((b) => [b.threads, b.value, b.gain])).toEqual([
      [1, '100.0 MB/s', ''], [2, '180.0 MB/s', '+80.0%'], [4, '185.6 MB/s', '+3.1%']])
    expect(read.bars.map((b) => b.widthPercent)).toEqual([(100 * 100) / 185.6, (100 * 180) / 185.6, 100])
    expect(read.bars.filter((b) => b.last).map((b) => b.threads)).toEqual([4])
    expect(read.stopped).toBe('4 threads: +3.1% over 2: stopped')
    expect(read.used).toBe('the verdict uses 4 threads (185.6 MB/s)')
    expect(v.sweeps[1].used).toBe('the verdict uses 1 thread (90.0 MB/s)')
  })

  it('draws each member\'s wait against the slowest, marks the one that stands out, and leaves unknowns empty', () => {
    const v = scalingView(sweep)!
    expect(v.members.map((m) => [m.name, m.wait, m.waitPercent, m.busy, m.standsOut])).toEqual([
      ['sdb', '6.0 ms', (100 * 6) / 41, '31%', false], ['sdc', '41.0 ms', 100, '97%', true], ['sdd', '', 0, '', false]])
    expect(v.waitSource).toBe('zpool iostat -l')
    expect(v.dragging).toBe(sweep.dragging)
  })

  it('is nothing without a sweep', () => {
    expect(scalingView(null)).toBeNull()
    expect(scalingView({ ...sweep, sweeps: [] })).toBeNull()
  })
})
