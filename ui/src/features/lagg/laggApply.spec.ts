import { describe, expect, it } from 'vitest'
import type { LaggPlan } from '../../api/types'
import { EMPTY_APPLY, appliedText, applyOptions, applyQuestion } from './laggApply'

const plan = (over: Partial<LaggPlan> = {}): LaggPlan => ({
  platform: 'truenas-scale', name: 'bond0', protocol: 'LACP', address: '10.20.0.5/24',
  members: [{ name: 'enp3s0f0' }, { name: 'enp4s0f0' }], ...over,
} as unknown as LaggPlan)

describe('applyOptions', () => {
  it('asks the TrueNAS for commit, probe and a person\'s confirmation', () => {
    const out = applyOptions({ ...EMPTY_APPLY, probeAddress: ' 10.20.0.1 ', checkinTimeout: '45' }, plan())
    expect(out).toEqual({ ok: true, options: { system: 'truenas', probe_address: '10.20.0.1', checkin_timeout: 45, wait_for_checkin: true } })
  })
  it('names each field it cannot send', () => {
    const out = applyOptions({ ...EMPTY_APPLY, probeAddress: 'nas', checkinTimeout: '2' }, plan({ address: null }))
    expect(out.ok).toBe(false)
    expect(out.ok ? [] : out.errors.map(([f]) => f)).toEqual(['options.checkin_timeout', 'options.probe_address', 'options.address'])
  })
  it('refuses a plan for another platform than where it would apply', () => {
    const linuxOnTrueNAS = applyOptions({ ...EMPTY_APPLY, probeAddress: '10.20.0.1' }, plan({ platform: 'linux' }))
    expect(linuxOnTrueNAS.ok ? [] : linuxOnTrueNAS.errors[0][0]).toBe('platform')
    const local = applyOptions({ ...EMPTY_APPLY, system: 'local' }, plan({ platform: 'linux' }))
    expect(local).toEqual({ ok: true, options: { system: 'local' } })
  })
})

describe('words', () => {
  it('says what will happen and what the rollback does', () => {
    const q = applyQuestion({ ...EMPTY_APPLY, probeAddress: '10.20.0.1' }, plan())
    expect(q).toMatch(/^Create bond0 \(LACP\) over enp3s0f0, enp4s0f0 on the TrueNAS\?/)
    expect(q).toMatch(/10\.20\.0\.1 must answer through it, then you confirm from this page, or TrueNAS puts the previous network back/)
  })
  it('says what was done, or that nothing was', () => {
    expect(appliedText({ name: 'bond0', ran: [], api_calls: ['interface.create'] })).toBe('bond0 is in place: interface.create, committed and checked in.')
    expect(appliedText({ name: 'bond0', ran: [], api_calls: [] })).toBe('bond0 was already as planned: nothing changed.')
  })
})
