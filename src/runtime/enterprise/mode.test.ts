import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../core/signing/envelope.js';
import { modeOf } from './mode.js';

const envelope = (policy: 'warn' | 'block_new'): Envelope => ({
  config: {},
  degraded_mode: { grace_period: '24h', message: 'Contact IT', policy },
  etag: 'sha256:00',
  issued_at: '2026-11-01T00:00:00.000Z',
  not_after: '2026-11-08T00:00:00.000Z',
  refresh_interval: '1h',
  schema_version: '1',
  signature: 'x..y',
});
const failed = { at: '2026-11-08T01:00:00.000Z', outcome: 'unreachable' as const, error: 'connection refused', last_success_at: '2026-11-07T00:00:00.000Z' };

describe('degraded mode', () => {
  it('applies nothing until a valid envelope has been received, and says why', () => {
    expect(modeOf(undefined, failed, new Date('2026-11-08T01:00:00Z'))).toMatchObject({ mode: 'pending', blocksNew: false, reason: expect.stringContaining('connection refused') as string });
  });

  it('changes nothing before not_after, even when refreshes fail', () => {
    expect(modeOf(envelope('block_new'), failed, new Date('2026-11-07T23:59:59Z'))).toMatchObject({ mode: 'current', message: '', blocksNew: false });
  });

  it('shows the message during the grace period, still enforcing', () => {
    expect(modeOf(envelope('block_new'), failed, new Date('2026-11-08T00:00:00Z'))).toMatchObject({ mode: 'grace', message: 'Contact IT', blocksNew: false });
    expect(modeOf(envelope('block_new'), failed, new Date('2026-11-08T23:59:59Z'))).toMatchObject({ mode: 'grace' });
  });

  it('after the grace period, warn goes on and block_new refuses new workloads', () => {
    const later = new Date('2026-11-09T00:00:00Z');
    expect(modeOf(envelope('warn'), failed, later)).toMatchObject({ mode: 'degraded', message: 'Contact IT', blocksNew: false, reason: expect.stringContaining('policy warn') as string });
    expect(modeOf(envelope('block_new'), failed, later)).toMatchObject({ mode: 'degraded', blocksNew: true, reason: expect.stringContaining('policy block_new') as string });
  });
});
