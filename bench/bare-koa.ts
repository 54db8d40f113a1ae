import Koa from 'koa';

// Shaped like a lead in the API's responses, so both servers serialise a similar amount of JSON.
const LEAD = {
  data: {
    id: '0b9e3c1e-8d7a-4c63-9a55-6f1f2b7f4d10',
    first_name: 'Olivia',
    last_name: 'Thompson',
    email: 'olivia.thompson.12345@example.com',
    phone: '+447700012345',
    postcode: 'SW1A 1AA',
    status: 'NEW',
    source: 'facebook_ads',
    needs_attention: false,
    follow_up: 'NOT_STARTED',
    score: null,
    archived: false,
    created_at: '2026-01-01T09:00:00.000Z',
    updated_at: '2026-01-01T09:00:00.000Z',
  },
  recent_activity: [],
};

/**
 * The baseline: the same framework and runtime as the API with none of its work (no database, no
 * auth, no audit), so "API vs bare Koa" isolates what the service itself costs per request.
 * `npm run bench -- bare-koa` serves it on PORT (default 3100) until SIGTERM or Ctrl+C.
 */
export async function main(_args: string[] = []) {
  const app = new Koa();
  app.use(async (ctx) => {
    ctx.body = LEAD;
  });
  const server = app.listen(Number(process.env.PORT ?? 3100), process.env.HOST ?? '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const close = () => server.close(() => process.exit(0));
  process.once('SIGTERM', close);
  process.once('SIGINT', close);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
