import { Raw } from 'typeorm';
import type { Data } from './data';
import { PublicRateWindowEntity } from './entities';

/** A bucket's count in the current minute, and the seconds until the next one starts. */
export type PublicWindow = { hits: number; reset: number };

/**
 * The public routes' counters, one row per bucket per minute in PostgreSQL, so every API process
 * shares them. SQL: an upsert that answers the new count, which TypeORM's save cannot.
 */
export const publicWindowsIn = (data: Data) => ({
  /** Counts one request in the bucket's current minute; a new minute drops the bucket's old ones. */
  count: async (bucket: string): Promise<PublicWindow> => {
    const [w] = await data.sql<PublicWindow[]>(
      `INSERT INTO public_rate_windows AS w (bucket, window_start, hits)
       VALUES ($1, date_trunc('minute', clock_timestamp()), 1)
       ON CONFLICT (bucket, window_start) DO UPDATE SET hits = w.hits + 1
       RETURNING w.hits,
         greatest(1, ceil(extract(epoch FROM w.window_start + interval '1 minute' - clock_timestamp())))::int AS reset`,
      [bucket],
    );
    if (w!.hits === 1)
      // Not awaited by the request: a failure only leaves a stale row, which the next minute drops.
      void data
        .global(PublicRateWindowEntity)
        .delete({
          bucket,
          window_start: Raw((column) => `${column} < date_trunc('minute', clock_timestamp())`),
        })
        .catch(() => undefined);
    return w!;
  },

  /** The bucket's count this minute, without counting. */
  peek: async (bucket: string): Promise<PublicWindow> => {
    const [w] = await data.sql<PublicWindow[]>(
      `SELECT coalesce(max(hits), 0)::int AS hits,
              greatest(1, ceil(extract(epoch FROM date_trunc('minute', clock_timestamp()) + interval '1 minute'
                - clock_timestamp())))::int AS reset
         FROM public_rate_windows WHERE bucket = $1 AND window_start = date_trunc('minute', clock_timestamp())`,
      [bucket],
    );
    return w!;
  },
});
