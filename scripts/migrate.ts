import { openDatabase } from '../domain/data-source';
import { ConfigError, loadConfig } from '../infra/config';

/** Runs pending TypeORM migrations against DATABASE_URL (docker-compose's one-shot `migrate`). */
async function main() {
  const config = loadConfig();
  const db = await openDatabase(config.databaseUrl, { migrate: true, poolSize: 2 });
  await db.destroy();
  console.log('migrations up to date');
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
