import { describe, expect, it } from 'vitest'
import { clientLine, joinArgv, joinServerUrl, joinSessionOf, joinedSummary, shellLine } from './joinSession'

// progress.extra as suite_joined.py's _announce sets it, one desktop in, one gone
const waiting = {
  phase: 'waiting for clients',
  session: {
    id: 3, token: 'tgb-0123abcd', expected: 2,
    joined: [
      { name: 'desk', os: 'linux', address: '10.99.1.2', nas_address: '10.99.1.1', joined_at: 1767000000.5, gone: null },
      { name: 'mac', os: 'macos', address: '10.99.1.7', nas_address: '10.99.1.1', joined_at: 1767000003, gone: 'its connection closed' },
    ],
  },
}

describe('joinSessionOf', () => {
  it('reads the session a waiting run announces', () => {
    const s = joinSessionOf(waiting)
    expect(s).toMatchObject({ id: 3, token: 'tgb-0123abcd', expected: 2 })
    expect(s?.joined).toEqual([
      { name: 'desk', os: 'linux', address: '10.99.1.2', nasAddress: '10.99.1.1', joinedAt: 1767000000.5, gone: null },
      { name: 'mac', os: 'macos', address: '10.99.1.7', nasAddress: '10.99.1.1', joinedAt: 1767000003, gone: 'its connection closed' },
    ])
    expect(joinedSummary(s!)).toBe('2 of 2 joined')
  })

  it('is null for live samples, other phases and a session without its token', () => {
    expect(joinSessionOf({ phase: 'pool SEQ1M_Q8T1 read', bytes_per_s: 3e8 })).toBeNull()
    expect(joinSessionOf(null)).toBeNull()
    expect(joinSessionOf('waiting for clients')).toBeNull()
    expect(joinSessionOf({ ...waiting, phase: 'network desk read' })).toBeNull()
    expect(joinSessionOf({ ...waiting, session: { ...waiting.session, token: '' } })).toBeNull()
  })

  it('counts nobody before the first desktop and skips entries without a name', () => {
    const s = joinSessionOf({ ...waiting, session: { ...waiting.session, joined: [{ os: 'linux' }, 'desk'] } })
    expect(s?.joined).toEqual([])
    expect(joinedSummary(s!)).toBe('0 of 2 joined')
  })
})

describe('the join command', () => {
  it('uses the host and port the panel is connected to, ws or wss, the port always written', () => {
    expect(joinServerUrl('ws://10.99.1.1:8610/api/current')).toBe('ws://10.99.1.1:8610')
    expect(joinServerUrl('wss://nas.example:8443/api/current')).toBe('wss://nas.example:8443')
    expect(joinServerUrl('wss://truenas.local/api/current')).toBe('wss://truenas.local:443')
    expect(joinServerUrl('ws://truenas.local/api/current')).toBe('ws://truenas.local:80')
    expect(joinServerUrl('ws://[fd00::1]:8610/api/current')).toBe('ws://[fd00::1]:8610')
    expect(() => joinServerUrl('http://nas:8610/')).toThrow(/not a ws:\/\/ or wss:\/\/ URL/)
  })

  it('asks for the SMB credentials only when the run copies to the share', () => {
    expect(shellLine(joinArgv('ws://10.99.1.1:8610/api/current', 'tgb-0123abcd', true))).toBe(
      'tengig client join ws://10.99.1.1:8610 --token tgb-0123abcd --smb-auth-file ~/.nas-smb.auth')
    expect(shellLine(joinArgv('ws://10.99.1.1:8610/api/current', 'tgb-0123abcd', false))).toBe(
      'tengig client join ws://10.99.1.1:8610 --token tgb-0123abcd')
  })

  it('quotes what a shell would split or expand', () => {
    expect(shellLine(['tengig', 'client', 'join', 'ws://[fd00::1]:8610', '--token', "it's $HOME"])).toBe(
      `tengig client join 'ws://[fd00::1]:8610' --token 'it'\\''s $HOME'`)
  })
})

describe('clientLine', () => {
  it('names the desktop, its OS and address, and why it is gone', () => {
    const [desk, mac] = joinSessionOf(waiting)!.joined
    expect(clientLine(desk)).toBe('desk (linux, 10.99.1.2)')
    expect(clientLine(mac)).toBe('mac (macos, 10.99.1.7) — gone: its connection closed')
  })
})
