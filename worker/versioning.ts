import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { WorkerDeploymentSettings } from '../infra/config';
import type { Logger } from '../infra/logger';
import { repoRoot } from '../infra/stack-file';

/** How often a worker looks at which version of its deployment is current. */
const ROUTING_CHECK_MS = 5_000;
/** A version is known to the server once one of its workers has polled; that takes about a second. */
const REGISTERED_WITHIN_MS = 60_000;

/**
 * WORKER_BUILD_ID as the release set it; otherwise the package version and the workflow bundle's digest,
 * so that two builds of different workflow code never share a version (a pinned run would then replay on
 * code it did not start on), and workers of the same code always do.
 */
export function buildIdOf(workflowBundlePath: string, given?: string): string {
  if (given) return given;
  const { version } = JSON.parse(readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as {
    version: string;
  };
  const digest = createHash('sha256').update(readFileSync(workflowBundlePath)).digest('hex');
  return `${version}+${digest.slice(0, 12)}`;
}

export const versionName = (v: WorkerDeploymentVersion) => `${v.deploymentName}:${v.buildId}`;

export type VersionRouting = {
  version: WorkerDeploymentVersion;
  /**
   * Whether this worker's version is its deployment's current one, as last seen. Only then may the relay
   * ask for eager starts: the server hands an eager start's first task to the asking worker whatever
   * version is current (measured on the dev server, 1.32.0), and a run whose first task ran on a version
   * the rollout has not made current yet would go on under the older current code, which cannot replay it.
   */
  isCurrent: () => boolean;
  stop: () => void;
};

/** The deployment's current version, if it has one (a deployment whose workers never became current has none). */
async function currentVersion(
  client: Client,
  deploymentName: string,
): Promise<{ current?: WorkerDeploymentVersion; conflictToken?: Uint8Array | null }> {
  const { workerDeploymentInfo, conflictToken } = await client.workflowService.describeWorkerDeployment({
    namespace: client.options.namespace,
    deploymentName,
  });
  const v = workerDeploymentInfo?.routingConfig?.currentDeploymentVersion;
  return {
    current:
      v?.buildId && v.deploymentName ? { buildId: v.buildId, deploymentName: v.deploymentName } : undefined,
    conflictToken,
  };
}

const same = (a: WorkerDeploymentVersion | undefined, b: WorkerDeploymentVersion) =>
  a?.buildId === b.buildId && a.deploymentName === b.deploymentName;

/** Waits until the server lists `taskQueue` under the version: its workers poll, so it can be made current. */
export async function versionRegistered(
  client: Client,
  version: WorkerDeploymentVersion,
  taskQueue: string,
  withinMs = REGISTERED_WITHIN_MS,
): Promise<void> {
  const deadline = Date.now() + withinMs;
  let last: string;
  for (;;) {
    try {
      const { workerDeploymentVersionInfo: info } =
        await client.workflowService.describeWorkerDeploymentVersion({
          namespace: client.options.namespace,
          deploymentVersion: version,
        });
      if (info?.taskQueueInfos?.some((q) => q.name === taskQueue)) return;
      last = `polls no task queue named ${taskQueue} yet`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() > deadline)
      throw new Error(`The worker version ${versionName(version)} did not register with Temporal: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Makes `version` its deployment's current one (a no-op when it is). Workers of one version start side
 * by side and may ask at once: the routing carries a conflict token, so a second ask made on the same
 * reading is refused; it reads again and finds its version current, or asks again.
 */
export async function makeCurrent(client: Client, version: WorkerDeploymentVersion): Promise<void> {
  for (let tries = 1; ; tries++) {
    const { current, conflictToken } = await currentVersion(client, version.deploymentName);
    if (same(current, version)) return;
    try {
      await client.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: client.options.namespace,
        deploymentName: version.deploymentName,
        buildId: version.buildId,
        conflictToken,
        identity: client.options.identity,
      });
      return;
    } catch (err) {
      if (tries === 5) throw err;
      await new Promise((resolve) => setTimeout(resolve, 200 * tries));
    }
  }
}

/**
 * Once the worker polls: makes its version current if WORKER_SET_CURRENT says so, or if the deployment
 * has no current version yet (its first start: nothing else would), then follows which version is current.
 */
export async function followVersionRouting(opts: {
  client: Client;
  settings: WorkerDeploymentSettings;
  buildId: string;
  taskQueue: string;
  log: Logger;
}): Promise<VersionRouting> {
  const { client, settings, log } = opts;
  const version = { deploymentName: settings.deploymentName, buildId: opts.buildId };
  await versionRegistered(client, version, opts.taskQueue);
  let { current } = await currentVersion(client, version.deploymentName);
  if (!same(current, version) && (settings.setCurrent === 'on-start' || !current)) {
    await makeCurrent(client, version);
    log.info('worker version made current', {
      version: versionName(version),
      was: current ? versionName(current) : null,
    });
    current = version;
  }
  let isCurrent = same(current, version);
  if (!isCurrent)
    log.info('worker version waits to be made current', {
      version: versionName(version),
      current: current ? versionName(current) : null,
    });
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    timer = setTimeout(() => {
      currentVersion(client, version.deploymentName)
        .then(({ current: now }) => {
          const was = isCurrent;
          isCurrent = same(now, version);
          if (was !== isCurrent)
            log.info(isCurrent ? 'worker version is now current' : 'worker version is no longer current', {
              version: versionName(version),
              current: now ? versionName(now) : null,
            });
        })
        // Kept as it was: the next check tries again.
        .catch((err: unknown) =>
          log.warn('could not read the current worker version', { error: String(err) }),
        )
        .finally(() => timer && check());
    }, ROUTING_CHECK_MS);
    timer.unref();
  };
  check();
  return {
    version,
    isCurrent: () => isCurrent,
    stop: () => {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
