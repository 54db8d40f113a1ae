import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseUnavailable } from '../../api/errors';

describe('which database failures are an outage (503) rather than a fault (500)', () => {
  const pg = (code: string, message = 'x') => Object.assign(new Error(message), { code });
  const wrapped = (driverError: Error) => Object.assign(new Error('query failed'), { driverError });

  it('counts connection loss, timeouts and a server going away as an outage', () => {
    for (const err of [
      new Error('timeout exceeded when trying to connect'),
      new Error('Query read timeout'),
      new Error('Connection terminated unexpectedly'),
      pg('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      wrapped(pg('57014', 'canceling statement due to statement timeout')),
      wrapped(pg('57P01', 'terminating connection due to administrator command')),
      wrapped(pg('08006', 'connection failure')),
      wrapped(pg('53300', 'too many connections')),
      wrapped(pg('25P03', 'idle-in-transaction timeout')),
    ])
      assert.equal(databaseUnavailable(err), true, err.message);
  });

  it('leaves bugs and bad data as faults', () => {
    for (const err of [
      new Error('boom'),
      wrapped(pg('23505', 'duplicate key')),
      wrapped(pg('42P01', 'relation does not exist')),
      wrapped(pg('22P02', 'invalid input syntax')),
      'a string',
      undefined,
    ])
      assert.equal(databaseUnavailable(err), false, String(err));
  });
});
