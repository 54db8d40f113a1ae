import { benchLogger } from './lib/log';
import { openBenchDatabase } from './lib/bench-database';

export async function main(args: string[]) {
  const stops: (() => Promise<void>)[] = [];
  try {
    const { db } = await openBenchDatabase(benchLogger('q'), stops);
    for (const sql of args) console.log(JSON.stringify(await db.query(sql), null, 0));
  } finally {
    for (const s of stops.reverse()) await s();
  }
}
