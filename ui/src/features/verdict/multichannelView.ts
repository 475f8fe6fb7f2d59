// SMB multichannel per client as the panel shows it beside the verdict (bench/phases/smb_results.py
// SmbMultichannel): whether the NAS offers it, where that was read, and the channels the client's session used.
import type { BenchReport, SmbMultichannel } from '../../api/types'

export interface MultichannelRow {
  client: string
  state: string // "on" | "off" | "unknown"
  from: string // "testparm /etc/samba/smb.conf" | "TrueNAS smb.config" | ''
  channels: string // "2 channels (10.0.0.1, 10.0.1.1)" | "1 channel" | "not listed by this Samba (before 4.18)"
}

function channelsText(mc: SmbMultichannel): string {
  const n = mc.channels
  const own = mc.client_channels
  if ((n === null || n === undefined) && own !== null && own !== undefined) {
    return `${own} channel${own === 1 ? '' : 's'}, as the desktop says (Get-SmbMultichannelConnection)`
  }
  if (n === null || n === undefined) return 'not listed by this Samba (before 4.18)'
  const where = mc.nas_addresses?.length ? ` (${mc.nas_addresses.join(', ')})` : ''
  return `${n} channel${n === 1 ? '' : 's'}${where}`
}

export function multichannelRows(report: BenchReport | null): MultichannelRow[] {
  const rows: MultichannelRow[] = []
  for (const c of report?.clients ?? []) {
    const mc = (c.smb as { multichannel?: SmbMultichannel | null } | null | undefined)?.multichannel
    if (!mc) continue
    rows.push({
      client: c.client,
      state: mc.enabled === true ? 'on' : mc.enabled === false ? 'off' : 'unknown',
      from: mc.read_from ?? '',
      channels: channelsText(mc),
    })
  }
  return rows
}
