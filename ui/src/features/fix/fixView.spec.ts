import { describe, expect, it } from 'vitest'
import planFixture from '../../fixtures/fix-plan-lab.json'
import outcomeFixture from '../../fixtures/fix-outcome-lab.json'
import recordsFixture from '../../fixtures/fix-records-lab.json'
import type { FixGain, FixOutcome, FixPlan, FixRecord } from '../../api/types'
import {
  confirmText, elsewhereNote, fixNote, fixPair, fixesDone, fixesByRule, fromToText, outcomeView, pairHash, predictedText, predictionRows,
  settingText, sureText,
} from './fixView'

// Recorded on the lab (scripts/record_ui_fixtures.py --only fix): SMB encryption required at 10 Gb/s, run 1
// names it; the fix applied, desk joined the re-measure (run 2), and the copies' spread overlapped: put back.
const plan = planFixture as unknown as FixPlan
const outcome = outcomeFixture as unknown as FixOutcome
const records = recordsFixture as unknown as FixRecord[]
const [fix] = plan.fixes

/** The recorded outcome as it reads had every copy after beaten every copy before (kept). */
function kept(): FixOutcome {
  const gains = outcome.gains.map((g): FixGain => ({ ...g, verdict: 'gain' }))
  return { ...outcome, state: 'kept', gains, why: 'a real gain' }
}

describe('a fix beside its advice', () => {
  it('is found by the advice rule it answers, for the desktop whose verdict gave it', () => {
    expect(Object.keys(fixesByRule(plan, null))).toEqual(['smb-encryption'])
    expect(fixesByRule(plan, 'desk')['smb-encryption']).toBe(fix)
    expect(fixesByRule(plan, 'lab')).toEqual({})
    expect(fixesByRule(null, null)).toEqual({})
  })

  it('shows the setting, from -> to, and the SMB it predicts in MB/s per direction', () => {
    expect(settingText(fix)).toBe('server smb encrypt of smb.conf [global]')
    expect(fromToText(fix)).toBe('required → if_required')
    expect(fromToText({ ...fix, from_value: null })).toBe('not read now (the run saw: sessions encrypted (smbstatus)) → if_required')
    expect(predictionRows(fix).map(({ why, ...r }) => r)).toEqual([
      { direction: 'read', now: '183.0 MB/s', predicted: '368.7 MB/s', change: '+101.5%', bound: 'Pool' },
      { direction: 'write', now: '168.9 MB/s', predicted: '393.6 MB/s', change: '+133.0%', bound: 'Pool' },
    ])
    expect(predictedText(fix)).toBe('predicted: SMB read 183.0 → up to 368.7 MB/s, write 168.9 → up to 393.6 MB/s')
    expect(confirmText(fix)).toContain('Set server smb encrypt of smb.conf [global] from required to if_required')
    expect(confirmText(fix)).toContain('with desk (it joins again)')
  })
})

describe('a run measured elsewhere', () => {
  it('offers no fix: a fix changes the NAS tengig runs on, from a run of system local there', () => {
    expect(elsewhereNote(plan, 'local')).toBe('')
    expect(elsewhereNote(plan, 'lab')).toBe('This run measured system lab: its fixes (smb-encryption) are applied on the '
      + 'NAS tengig runs on, from a run of system local there.')
    expect(elsewhereNote({ ...plan, fixes: [] }, 'lab')).toBe('')
  })
})

describe('an applied fix', () => {
  it('shows each direction before and after with the gain and how sure, put back when within the spread', () => {
    const view = outcomeView(outcome)
    expect([view.state, view.stateText, view.canUndo, view.runId, view.afterRunId]).toEqual(['rolled-back', 'put back', false, 1, 2])
    expect(view.change).toBe('server smb encrypt of smb.conf [global]: required → if_required')
    expect(view.gains).toEqual([
      { direction: 'read', before: '183.0 MB/s', after: '329.8 MB/s', gain: '+80.2%', verdict: 'within-spread',
        verdictText: 'within the spread', sure: 'no real change: the copies overlap',
        copies: '3 copies before (170.8–283.5 MB/s), 3 after (252.8–335.1 MB/s)' },
      { direction: 'write', before: '168.9 MB/s', after: '328.6 MB/s', gain: '+94.5%', verdict: 'within-spread',
        verdictText: 'within the spread', sure: 'no real change: the copies overlap',
        copies: '3 copies before (92.0–218.4 MB/s), 3 after (189.6–340.2 MB/s)' },
    ])
    expect(view.predictedVsMeasured).toEqual(['read: predicted up to 368.7 MB/s, measured 329.8 MB/s',
      'write: predicted up to 393.6 MB/s, measured 328.6 MB/s'])
    expect(view.why).toContain('put back server smb encrypt of smb.conf [global] to required')
  })

  it('says how sure a real gain is: the chance of so clean a separation by luck alone', () => {
    const view = outcomeView(kept())
    expect([view.stateText, view.canUndo]).toEqual(['kept', true])
    expect(view.gains.map((g) => [g.verdictText, g.sure])).toEqual([
      ['gain', '1 in 20 by luck alone (5%)'], ['gain', '1 in 20 by luck alone (5%)']])
    expect(sureText({ ...outcome.gains[0], verdict: 'loss', chance_percent: 100 / 252 })).toBe('1 in 252 by luck alone (0.40%)')
  })

  it('reads the same from the results database (tengig.fix.query) as from the job', () => {
    const [record] = records
    const { undone, ...fromRecord } = outcomeView(record)
    const { undone: none, ...fromJob } = outcomeView(outcome)
    expect(fromRecord).toEqual(fromJob)
    expect([undone, none]).toEqual([null, null])
    expect(outcomeView({ ...record, state: 'applying', why: null, gains: [] })).toMatchObject(
      { stateText: 'stopped mid-way: Undo puts the value before it back', why: 'it did not finish', canUndo: true, gains: [] })
  })
})

describe('the pair', () => {
  it('links the run a fix was made from and the run that measured it again, either way round', () => {
    expect(fixPair(records, 1, 2)).toBe(records[0])
    expect(fixPair(records, 2, 1)).toBe(records[0])
    expect(fixPair(records, 1, 3)).toBeNull()
    expect(fixPair([{ ...records[0], after_run_id: null }], 1, 2)).toBeNull()
    expect(pairHash(records[0])).toBe('#/history/1/2')
  })

  it('says beside the advice what a fix made from the run did, and whether it is in place', () => {
    expect(fixesDone(records, 1)).toEqual({ 'smb-encryption': { text: 'fix put back (run 2)', inPlace: false } })
    expect(fixesDone([{ ...records[0], state: 'kept' }], 1)).toEqual({ 'smb-encryption': { text: 'fix kept (run 2)', inPlace: true } })
    expect(fixesDone(records, 2)).toEqual({}) // the re-measure made no fix
  })

  it('notes each run of the pair in its verdict and its History row', () => {
    expect(fixNote(records, 1)).toBe('fix smb-encryption put back (run 2)')
    expect(fixNote(records, 2)).toBe('re-measure of fix smb-encryption from run 1 (put back)')
    expect(fixNote(records, 3)).toBe('')
  })
})
