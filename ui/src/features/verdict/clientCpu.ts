/**
 * What each desktop's SMB client used of its CPU during its copies (bench/client_cpu.py ClientCpu, measured on
 * the desktop, bounded by the NAS): shown beside the verdict, whose summary names the desktop's CPU when it is
 * what holds SMB back.
 */
import type { BenchReport } from '../../api/types'

/** One direction's figure as the report holds it (SmbDirection.client_cpu). */
export interface ClientCpu {
  cores: number
  cpus: number
  cpu_seconds: number[]
  wall_seconds: number[]
}

interface SmbWithCpu {
  read?: { client_cpu?: ClientCpu | null }
  write?: { client_cpu?: ClientCpu | null }
}

export interface ClientCpuView {
  /** The client's name (ClientReport.client). */
  name: string
  /** e.g. "desk's SMB client used 0.10 of a core reading, 0.09 writing (it may use 0.1: its CPUs or its cgroup's limit)". */
  text: string
}

/** 0.1, 2, 0.25: at most two significant digits, no trailing zeros. */
function cpusText(cpus: number): string {
  return String(Number(cpus.toPrecision(2)))
}

/** One line per desktop whose SMB client's CPU was measured; none for a run without that figure. */
export function clientCpus(report: BenchReport | null): ClientCpuView[] {
  return (report?.clients ?? []).flatMap((c) => {
    const smb = (c.smb ?? null) as SmbWithCpu | null
    const measured = (
      [['reading', smb?.read?.client_cpu], ['writing', smb?.write?.client_cpu]] as [string, ClientCpu | null | undefined][]
    ).filter((pair): pair is [string, ClientCpu] => !!pair[1])
    if (!measured.length) return []
    const [[how, first], ...rest] = measured
    const used = [`${first.cores.toFixed(2)} of a core ${how}`, ...rest.map(([h, cpu]) => `${cpu.cores.toFixed(2)} ${h}`)]
    const cpus = Math.min(...measured.map(([, cpu]) => cpu.cpus))
    return [{
      name: c.client,
      text: `${c.client}'s SMB client used ${used.join(', ')} (it may use ${cpusText(cpus)}: its CPUs or its cgroup's limit)`,
    }]
  })
}
