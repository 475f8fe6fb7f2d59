import { describe, expect, it } from 'vitest'
import type { Job } from '../../api/types'
import { checkinOf, countdownText, elapsedFraction, secondsLeft } from './checkin'

const job = (extra: unknown): Job => ({ id: 7, method: 'tengig.mesh.apply', progress: { percent: 90, description: 'x', extra },
  state: 'RUNNING', result: null, error: null })

describe('checkinOf', () => {
  it('reads the countdown the apply job publishes', () => {
    const c = checkinOf(job({ checkin: { waiting: true, seconds_left: 57, timeout: 60, method: 'tengig.mesh.checkin' } }))
    expect(c).toEqual({ waiting: true, seconds_left: 57, timeout: 60, method: 'tengig.mesh.checkin' })
  })
  it('is null for jobs without one: a live bench sample, nothing, or a malformed value', () => {
    expect(checkinOf(job({ phase: 'smb read', bytes_per_s: 1e8 }))).toBeNull()
    expect(checkinOf(job(null))).toBeNull()
    expect(checkinOf(null)).toBeNull()
    expect(checkinOf(job({ checkin: { waiting: 'yes', seconds_left: 5, timeout: 60, method: 'm' } }))).toBeNull()
  })
})

describe('countdown', () => {
  const c = { waiting: true, seconds_left: 30, timeout: 60, method: 'tengig.mesh.checkin' }
  it('counts on between server ticks and never goes below zero', () => {
    expect(secondsLeft(c, 1000, 1000)).toBe(30)
    expect(secondsLeft(c, 1000, 3500)).toBe(28)
    expect(secondsLeft(c, 1000, 99_000)).toBe(0)
    expect(secondsLeft(c, 5000, 1000)).toBe(30) // a clock that went backwards does not add time
  })
  it('says what happens when nobody confirms', () => {
    expect(countdownText(12, 'The mesh')).toMatch(/Confirm within 12 s .* or it is taken back/)
    expect(countdownText(0, 'The LAGG')).toBe('Time is up: The LAGG is being taken back.')
  })
  it('fills the bar as time runs out', () => {
    expect(elapsedFraction(60, 60)).toBe(0)
    expect(elapsedFraction(15, 60)).toBe(0.75)
    expect(elapsedFraction(-3, 60)).toBe(1)
  })
})
