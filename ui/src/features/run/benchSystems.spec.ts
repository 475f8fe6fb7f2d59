import { describe, expect, it } from 'vitest'
import type { BenchSystemState } from '../../api/types'
import { firstUsable, reasonOf, systemLabel } from './benchSystems'

const states: BenchSystemState[] = [
  { name: 'local', usable: false, reason: 'linux (no TrueNAS middlewared); pools: no ZFS pool', joins: true },
  { name: 'truenas', usable: false, reason: 'needs tengig on the NAS', joins: false },
  { name: 'lab', usable: true, reason: 'the embedded lab is up: nas, desk, lab', joins: false },
]

describe('bench systems', () => {
  it('offers the first usable system, never one that is not', () => {
    expect(firstUsable(states)).toBe('lab')
    expect(firstUsable([{ ...states[0], usable: true }, states[2]])).toBe('local')
    expect(firstUsable(states.map((s) => ({ ...s, usable: false })))).toBe('')
  })

  it('labels the unusable ones and gives each reason', () => {
    expect(states.map(systemLabel)).toEqual(['local (not usable now)', 'truenas (not usable now)', 'lab'])
    expect(reasonOf(states, 'lab')).toBe('the embedded lab is up: nas, desk, lab')
    expect(reasonOf(states, 'nope')).toBe('')
  })
})
