// The dev stack's folders are runtime knowledge too (the admin CLI reads the stack file); one definition.
export { dataDir, repoRoot, stackFile } from '../infra/stack-file';
