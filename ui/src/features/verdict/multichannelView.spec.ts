import { describe, expect, it } from 'vitest'
import type { BenchReport } from '../../api/types'
import { multichannelRows } from './multichannelView'

const report = {
  system: 'local', kind: 'smb', preset: 'quick', target: 'x',
  clients: [
    { client: 'desk', smb: { multichannel: { enabled: false, read_from: 'testparm /etc/samba/smb.conf', channels: null } } },
    { client: 'win', smb: { multichannel: { enabled: true, read_from: 'TrueNAS smb.config', channels: 2,
      nas_addresses: ['10.250.12.1', '10.250.13.1'] } } },
    { client: 'one', smb: { multichannel: { enabled: null, channels: 1 } } },
    { client: 'pc', smb: { multichannel: { enabled: true, channels: null, client_channels: 2 } } },
    { client: 'net-only', smb: null },
  ],
} as unknown as BenchReport

describe('multichannelRows', () => {
  it('shows each client: multichannel on or off and where the NAS read it, and the channels its session used', () => {
    expect(multichannelRows(report)).toEqual([
      { client: 'desk', state: 'off', from: 'testparm /etc/samba/smb.conf', channels: 'not listed by this Samba (before 4.18)' },
      { client: 'win', state: 'on', from: 'TrueNAS smb.config', channels: '2 channels (10.250.12.1, 10.250.13.1)' },
      { client: 'one', state: 'unknown', from: '', channels: '1 channel' },
      { client: 'pc', state: 'on', from: '', channels: '2 channels, as the desktop says (Get-SmbMultichannelConnection)' },
    ])
  })

  it('has no row without SMB', () => {
    expect(multichannelRows(null)).toEqual([])
  })
})
