import { Not, type FindOptionsSelect } from 'typeorm';
import type { Changes, Data } from '../../kernel/data';
import { EndpointEntity, type Endpoint } from '../entities';

/** An endpoint as its management reads it: never a secret. */
export type EndpointRecord = Omit<Endpoint, 'secret_ciphertext' | 'previous_secret_ciphertext'>;

const WITHOUT_SECRET: FindOptionsSelect<Endpoint> = {
  id: true,
  workspace_id: true,
  url: true,
  event_types: true,
  owner_user_id: true,
  status: true,
  disabled_reason: true,
  signing_scheme: true,
  previous_secret_expires_at: true,
  consecutive_failures: true,
  created_at: true,
  updated_at: true,
};

/** A workspace's webhook endpoints; a deleted one is gone to everyone but the delivery history. */
export const endpointsIn = (data: Data) => {
  const rows = data.scoped(EndpointEntity);
  const notDeleted = Not('DELETED' as const);
  const live = (id: string) => ({ id, status: notDeleted });
  return {
    /** Newest first. */
    list: (): Promise<EndpointRecord[]> =>
      rows.find({ status: notDeleted }, { order: { created_at: 'DESC' }, select: WITHOUT_SECRET }),
    find: (id: string): Promise<EndpointRecord | null> => rows.findOne(live(id), { select: WITHOUT_SECRET }),
    /** Held until the transaction ends, so its deliveries' fate is decided against this state. */
    lock: (id: string): Promise<EndpointRecord | null> =>
      rows.findOne(live(id), { lock: true, select: WITHOUT_SECRET }),
    /** The current secret, encrypted: what a rotation keeps signing through its overlap. */
    secretOf: async (id: string): Promise<Buffer | undefined> =>
      (await rows.findOne(live(id), { select: { secret_ciphertext: true } }))?.secret_ciphertext,
    create: (values: Changes<Endpoint>): Promise<Endpoint> => rows.insert(values),
    /** Changes an endpoint the caller holds locked; `updated_at` says when. */
    change: async (id: string, values: Changes<Endpoint>): Promise<Endpoint> =>
      (await rows.update({ id }, { ...values, updated_at: () => 'clock_timestamp()' }))[0]!,
  };
};
