import { describe, expect, it } from 'vitest'
import { ApiError, ConnectionError, JobFailedError, describeError } from './errors'

describe('describeError', () => {
  it('names each invalid field of a -32602', () => {
    const err = new ApiError('tengig.targets.create', -32602, 'Invalid params', {
      error: 22,
      errname: 'EINVAL',
      extra: [
        ['target.name', 'String should match pattern', 22],
        ['target.read_bytes_per_s', 'Input should be greater than 0', 22],
      ],
    })
    expect(describeError(err)).toBe(
      'tengig.targets.create refused the input: target.name: String should match pattern; ' +
        'target.read_bytes_per_s: Input should be greater than 0',
    )
  })

  it('says a missing method means an older tengig', () => {
    expect(describeError(new ApiError('tengig.mesh.plan', -32601, 'Method not found'))).toMatch(
      /no method tengig.mesh.plan/,
    )
  })

  it('asks to log in again when not authenticated', () => {
    const err = new ApiError('tengig.results.query', -32001, 'Not authenticated', { errname: 'ENOTAUTHENTICATED' })
    expect(describeError(err)).toMatch(/log in again/)
  })

  it('keeps the reason and errno name of a call error', () => {
    const err = new ApiError('tengig.bench.run', -32001, 'x', { errname: 'EBUSY', reason: 'a benchmark of tgtank runs' })
    expect(describeError(err)).toBe('tengig.bench.run failed [EBUSY]: a benchmark of tgtank runs')
  })

  it('tells a failed job from an aborted one', () => {
    expect(describeError(new JobFailedError('tengig.bench.run', 'FAILED', 'smbclient: connection refused', 'ECONNREFUSED')))
      .toBe('tengig.bench.run failed [ECONNREFUSED]: smbclient: connection refused')
    expect(describeError(new JobFailedError('tengig.bench.run', 'ABORTED', 'the benchmark was aborted')))
      .toBe('tengig.bench.run was aborted: the benchmark was aborted')
  })

  it('passes connection errors through and never returns an empty string', () => {
    expect(describeError(new ConnectionError('Lost the connection to ws://x/api/current'))).toBe(
      'Lost the connection to ws://x/api/current',
    )
    expect(describeError('boom')).toBe('Unexpected error: boom')
    expect(describeError(new Error('bad'))).toBe('Unexpected error: bad')
  })
})
