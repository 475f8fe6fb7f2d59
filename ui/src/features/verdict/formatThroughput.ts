/**
 * Throughput display strings with explicit units:
 *   MB/s  = 10^6 bytes per second
 *   MiB/s = 2^20 bytes per second
 *   Mb/s  = 10^6 bits per second
 *   Gb/s  = 10^9 bits per second
 *
 * A rate that is not a finite, non-negative number is a bug upstream (a failed
 * or unparsed benchmark), so it throws instead of being shown as "0".
 */

const BYTES_PER_MB = 1e6
const BYTES_PER_MIB = 2 ** 20
const BITS_PER_GB = 1e9

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
  return bitsPerSecond >= BITS_PER_GB ? formatGbps(bitsPerSecond) : `${(bitsPerSecond / 1e6).toFixed(1)} Mb/s`
}
