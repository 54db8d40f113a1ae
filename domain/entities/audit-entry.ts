import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type AuditDoor = 'rest' | 'mcp' | 'admin' | 'activity';
export type AuditOutcome = 'allowed' | 'refused' | 'failed';

@Entity({ name: 'audit_log' })
export class AuditEntry {
  @PrimaryGeneratedColumn('identity', { type: 'bigint' }) id!: string;
  @Column({ type: 'timestamptz' }) at!: Date;
  @Column({ type: 'text' }) door!: AuditDoor;
  /** `GET /api/v1/me`, an MCP tool name, an admin command or an operation name. */
  @Column({ type: 'text' }) action!: string;
  @Column({ type: 'text' }) outcome!: AuditOutcome;
  /** The real reason for a refusal or failure; callers only ever see a generic body. */
  @Column({ type: 'text', nullable: true }) reason!: string | null;
  @Column({ type: 'integer', nullable: true }) status!: number | null;
  @Column({ type: 'uuid', name: 'workspace_id', nullable: true }) workspaceId!: string | null;
  @Column({ type: 'uuid', name: 'key_id', nullable: true }) keyId!: string | null;
  /** Display prefix of the presented key, also for unknown keys; never the key. */
  @Column({ type: 'text', name: 'key_prefix', nullable: true }) keyPrefix!: string | null;
  @Column({ type: 'uuid', name: 'actor_user_id', nullable: true }) actorUserId!: string | null;
  @Column({ type: 'text', name: 'request_id', nullable: true }) requestId!: string | null;
  @Column({ type: 'text', name: 'client_ip', nullable: true }) clientIp!: string | null;
  @Column({ type: 'jsonb', nullable: true }) details!: Record<string, unknown> | null;
}
