import { describe, expect, it } from 'vitest'
import run from '../../fixtures/run-lab-desk-1g.json'
import type { Comparison, RunEntry } from '../../api/types'
import { historyChartData, metricRows, runRow } from './history'

const ok = run as unknown as RunEntry
const failed: RunEntry = {
  ...ok, id: 2, started: ok.started + 100, status: 'failed', results: null, verdict: null,
  error: 'smbclient on desk: NT_STATUS_CONNECTION_REFUSED',
}

describe('runRow', () => {
  it('shows a successful run with its SMB figures and summary', () => {
    const row = runRow(ok)
    expect(row).toMatchObject({ id: 1, kind: 'all', status: 'success', target: 'hdd-15k-best',
      smbRead: '115.5 MB/s', smbWrite: '114.9 MB/s' })
    expect(row.outcome).toBe(ok.verdict!.summary)
    expect(row.when).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/)
  })

  it('shows a failed run with its error and no numbers', () => {
    expect(runRow(failed)).toMatchObject({ smbRead: '—', smbWrite: '—',
      outcome: 'failed: smbclient on desk: NT_STATUS_CONNECTION_REFUSED' })
  })
})

describe('historyChartData', () => {
  it('plots successful runs only, oldest first, in MB/s', () => {
    const later = { ...ok, id: 3, started: ok.started + 200 }
    expect(historyChartData([later, failed, ok])).toEqual([
      [ok.started, ok.started + 200], [115.46, 115.46], [114.86, 114.86]])
  })
})

describe('metricRows', () => {
  const cmp: Comparison = {
    a: { id: 1, kind: 'all', status: 'success', started: 0 },
    b: { id: 3, kind: 'all', status: 'success', started: 1 },
    metrics: {
      'clients.0.smb.read.bytes_per_s.median': { a: 115456102.4, b: 230912204.8, delta: 115456102.4, delta_percent: 100, unit: 'B/s' },
      'clients.0.network.0.goodput_bps': { a: 928060664.6, b: 900000000, delta: -28060664.6, delta_percent: -3.02, unit: 'bit/s' },
      'clients.0.network.0.retransmits': { a: 0, b: 4, delta: 4, delta_percent: null, unit: '' },
    },
    only_in_a: [], only_in_b: [], environment: {},
  }

  it('keeps the headline metrics, formatted in their units with signed deltas', () => {
    expect(metricRows(cmp, true)).toEqual([
      { path: 'clients.0.network.0.goodput_bps', a: '0.93 Gb/s', b: '0.90 Gb/s', delta: '-0.03 Gb/s', percent: '-3.0%', direction: 'down' },
      { path: 'clients.0.smb.read.bytes_per_s.median', a: '115.5 MB/s', b: '230.9 MB/s', delta: '+115.5 MB/s', percent: '+100.0%', direction: 'up' },
    ])
  })

  it('shows every metric on request and says when a percentage cannot exist', () => {
    const rows = metricRows(cmp, false)
    expect(rows).toHaveLength(3)
    expect(rows.find((r) => r.path.endsWith('retransmits'))).toMatchObject({ a: '0', b: '4', delta: '+4', percent: 'n/a (a is 0)' })
  })
})
