import { describe, expect, it } from 'vitest'
import { draftToTarget, targetRow } from './targetForm'

describe('draftToTarget', () => {
  it('turns MB/s into bytes/s (10^6) and trims', () => {
    expect(draftToTarget({ name: 'my-raid10', title: ' Old RAID 10 ', readMBps: '412.5', writeMBps: '', source: 'my own fio' }))
      .toEqual({ ok: true, target: { name: 'my-raid10', title: 'Old RAID 10', read_bytes_per_s: 412_500_000,
        write_bytes_per_s: null, source: 'my own fio' } })
  })

  it('names every bad field as the server would', () => {
    const out = draftToTarget({ name: 'My RAID', title: '', readMBps: '0', writeMBps: 'fast', source: '' })
    expect(out.ok).toBe(false)
    if (!out.ok) {
      expect(out.errors.map(([f]) => f)).toEqual(['target.name', 'target.title', 'target.source',
        'target.read_bytes_per_s', 'target.write_bytes_per_s'])
    }
  })
})

describe('targetRow', () => {
  it('says "no figure" for a missing write speed rather than 0', () => {
    expect(targetRow({ name: 'hdd', title: 'HDD', read_bytes_per_s: 223.4e6, write_bytes_per_s: null, source: 's', builtin: true }))
      .toEqual({ name: 'hdd', title: 'HDD', read: '223.4 MB/s', write: 'no figure', source: 's', builtin: true })
  })
})
