import { describe, expect, it } from 'vitest'
import type { BenchSystemState } from '../../api/types'
import { EMPTY_RUN_DRAFT, acceptsJoins, draftToRequest, type RunDraft } from './runForm'

const lab: RunDraft = { ...EMPTY_RUN_DRAFT, system: 'lab', target: 'hdd-15k-best' }
const local: RunDraft = { ...EMPTY_RUN_DRAFT, system: 'local', target: 'hdd-15k-best' }

const SYSTEMS: BenchSystemState[] = [
  { name: 'local', usable: true, reason: 'this machine', joins: true },
  { name: 'truenas', usable: false, reason: 'no', joins: false },
  { name: 'lab', usable: true, reason: 'up', joins: false },
]

describe('draftToRequest', () => {
  it('sends named clients, runs and seconds as before on the lab, and never join there', () => {
    expect(draftToRequest(SYSTEMS, { ...lab, clients: 'desk, lab', repeats: '1', netSeconds: '2', join: '2', share: 'media' })).toEqual({
      ok: true,
      request: { system: 'lab', target: 'hdd-15k-best', preset: 'quick', kind: 'all', clients: ['desk', 'lab'], repeats: 1, net_seconds: 2 },
    })
  })

  it('sends join and share on local, and no clients (the desktops that join are the clients)', () => {
    expect(draftToRequest(SYSTEMS, { ...local, clients: 'desk', join: '2', share: ' media ' })).toEqual({
      ok: true,
      request: { system: 'local', target: 'hdd-15k-best', preset: 'quick', kind: 'all', clients: [], join: 2, share: 'media' },
    })
    // v-model gives a number input's value as a number
    const net = draftToRequest(SYSTEMS, { ...local, kind: 'net', join: 1 as unknown as string, netSeconds: 1 as unknown as string })
    expect(net).toEqual({ ok: true, request: { system: 'local', target: 'hdd-15k-best', preset: 'quick', kind: 'net', clients: [], net_seconds: 1, join: 1 } })
  })

  it('needs the share when desktops join a run that measures SMB, naming the field', () => {
    expect(draftToRequest(SYSTEMS, { ...local, kind: 'smb', join: '1' })).toEqual({
      ok: false, errors: [['share', expect.stringMatching(/^SMB share: name the share/)]],
    })
    expect(draftToRequest(SYSTEMS, { ...local, kind: 'all', join: '1', share: '  ' }).ok).toBe(false)
    expect(draftToRequest(SYSTEMS, { ...local, kind: 'net', join: '1' }).ok).toBe(true)
    expect(draftToRequest(SYSTEMS, { ...local, kind: 'pool', join: '0' })).toEqual({
      ok: true, request: { system: 'local', target: 'hdd-15k-best', preset: 'quick', kind: 'pool', clients: [] },
    })
  })

  it('refuses a number of desktops outside 0..16, naming the field', () => {
    for (const join of ['17', '-1', '1.5', 'two']) {
      const out = draftToRequest(SYSTEMS, { ...local, kind: 'net', join })
      expect(out).toEqual({ ok: false, errors: [['join', expect.stringMatching(/^desktops to join: a whole number from 0 to 16/)]] })
    }
  })

  it('offers joins on the NAS itself only', () => {
    expect(['local', 'lab', 'truenas', ''].map((name) => acceptsJoins(name, SYSTEMS))).toEqual([true, false, false, false])
    const plugin = SYSTEMS.map((s) => ({ ...s, joins: false }))  // middlewared: no run tokens, no joins
    expect(acceptsJoins('local', plugin)).toBe(false)
    expect(draftToRequest(plugin, { ...EMPTY_RUN_DRAFT, system: 'local', target: 't', join: '2', clients: 'desk' })).toMatchObject({
      ok: true, request: { clients: ['desk'] } })
  })
})
