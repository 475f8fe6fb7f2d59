/**
 * Every number the panel shows with a unit, in one place; the features import from here. Units are
 * always explicit:
 *   MB/s  = 10^6 bytes per second      (bytes/s as tengig reports them)
 *   MiB/s = 2^20 bytes per second
 *   Mb/s  = 10^6 bits per second       (network rates, bits/s)
 *   Gb/s  = 10^9 bits per second
 *   B, kB, MB, GB = 1, 10^3, 10^6, 10^9 bytes
 *
 * A rate that is not a finite, non-negative number is a bug upstream (a failed
 * or unparsed benchmark), so it throws instead of being shown as "0".
 */

export const BYTES_PER_MB = 1e6
export const BYTES_PER_MIB = 2 ** 20
export const BITS_PER_MB = 1e6
export const BITS_PER_GB = 1e9

function assertRate(value: number, unit: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new Error(
      `Cannot format throughput ${String(value)} ${unit}: expected a finite number >= 0; ` +
        'check the benchmark result that produced it.',
    )
  }
}

/** 223_400_000 bytes/s -> "223.4 MB/s" */
export function formatMBps(bytesPerSecond: number): string {
  assertRate(bytesPerSecond, 'bytes/s')
  return `${(bytesPerSecond / BYTES_PER_MB).toFixed(1)} MB/s`
}

/** 234_881_024 bytes/s -> "224.0 MiB/s" */
export function formatMiBps(bytesPerSecond: number): string {
  assertRate(bytesPerSecond, 'bytes/s')
  return `${(bytesPerSecond / BYTES_PER_MIB).toFixed(1)} MiB/s`
}

/** 9_420_000_000 bits/s -> "9.42 Gb/s" */
export function formatGbps(bitsPerSecond: number): string {
  assertRate(bitsPerSecond, 'bits/s')
  return `${(bitsPerSecond / BITS_PER_GB).toFixed(2)} Gb/s`
}

/** 941_414_734 bits/s -> "941.4 Mb/s"; 1_765_279_583 -> "1.77 Gb/s" (10^6 / 10^9 bits per second). */
export function formatBitRate(bitsPerSecond: number): string {
  assertRate(bitsPerSecond, 'bits/s')
  return bitsPerSecond >= BITS_PER_GB ? formatGbps(bitsPerSecond) : `${(bitsPerSecond / BITS_PER_MB).toFixed(1)} Mb/s`
}

/**
 * A port's nominal link speed, as exact as the NIC reports it: 1e9 -> "1 Gb/s", 2.5e9 -> "2.5 Gb/s",
 * 100e6 -> "100 Mb/s" (a measured rate goes through formatGbps / formatBitRate, with fixed decimals).
 */
export function formatLinkSpeed(bitsPerSecond: number): string {
  assertRate(bitsPerSecond, 'bits/s')
  return bitsPerSecond / BITS_PER_GB >= 1 ? `${bitsPerSecond / BITS_PER_GB} Gb/s` : `${bitsPerSecond / BITS_PER_MB} Mb/s`
}

/** Bytes with an explicit decimal unit: "336 B", "12.3 kB", "354.8 MB", "1.23 GB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) throw new Error(`Cannot show ${String(bytes)} bytes`)
  if (bytes < 1e3) return `${bytes} B`
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} kB`
  if (bytes < 1e9) return `${(bytes / 1e6).toFixed(1)} MB`
  return `${(bytes / 1e9).toFixed(2)} GB`
}

/** A percentage already in percent (0-100 scale): 12.345 -> "12.3%"; `signed` writes "+" before a gain. */
export function formatPercent(percent: number, { digits = 1, signed = false } = {}): string {
  return `${signed && percent > 0 ? '+' : ''}${percent.toFixed(digits)}%`
}

/** '2026-11-21 10:57' in the viewer's time zone, from seconds since the epoch. */
export function formatWhen(epochSeconds: number): string {
  const d = new Date(epochSeconds * 1000)
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`
}
