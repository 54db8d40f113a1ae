import type { DataSource } from 'typeorm';
import * as yup from 'yup';
import { operationAudit, writeAudit, type CallContext } from '../audit';
import { Workspace } from '../entities/workspace';
import { validate } from '../validate';
import { workspaceView } from '../views';

const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

const schema = yup
  .object({
    name: yup.string().trim().required('name is required').max(200),
    timezone: yup
      .string()
      .trim()
      .default('UTC')
      .test('iana', 'timezone must be an IANA time zone name, for example Europe/London', isTimeZone),
    industry: yup.string().trim().max(200).default(''),
  })
  .noUnknown('${unknown} is not a workspace field');

export async function createWorkspace(db: DataSource, ctx: CallContext, input: unknown) {
  const fields = validate(schema, input);
  return db.transaction(async (m) => {
    const workspace = await m.save(m.create(Workspace, { ...fields, status: 'active' }));
    await writeAudit(m, operationAudit(ctx, 'workspace.create', workspace.id, { name: workspace.name }));
    return workspaceView(workspace);
  });
}
