import { describe, expect, it } from 'vitest'
import { addSample } from './liveSamples'

describe('addSample', () => {
  it('adds a new sample once and skips repeats of the same extra', () => {
    const extra = { phase: 'pool SEQ1M_Q8T1 read', bytes_per_s: 310e6, run: 1 }
    let state = addSample([], null, extra, 1.5)
    state = addSample(state.samples, state.lastExtra, extra, 2)
    state = addSample(state.samples, state.lastExtra, { ...extra, run: 2 }, 3)
    expect(state.samples).toEqual([
      { t: 1.5, phase: 'pool SEQ1M_Q8T1 read', bytesPerS: 310e6 },
      { t: 3, phase: 'pool SEQ1M_Q8T1 read', bytesPerS: 310e6 },
    ])
  })

  it('ignores extras that are not samples (no phase, a non-number rate)', () => {
    expect(addSample([], null, null, 1).samples).toEqual([])
    expect(addSample([], null, { phase: 'smb read desk', bytes_per_s: 'fast' }, 1).samples).toEqual([])
    expect(addSample([], null, { phase: 'smb read desk', bytes_per_s: Number.NaN }, 1).samples).toEqual([])
  })
})
