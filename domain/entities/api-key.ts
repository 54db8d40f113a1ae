import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Scope } from '../policy';

@Entity({ name: 'api_keys' })
export class ApiKey {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ type: 'uuid', name: 'workspace_id' }) workspaceId!: string;
  @Column({ type: 'uuid', name: 'owner_user_id' }) ownerUserId!: string;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'text' }) environment!: string;
  /** First 12 characters, for recognising the key in lists. */
  @Column({ type: 'text' }) prefix!: string;
  /** SHA-256 of the whole key; the key itself is never stored. */
  @Column({ type: 'bytea' }) fingerprint!: Buffer;
  @Column({ type: 'text', array: true }) scopes!: Scope[];
  @Column({ type: 'text', array: true, name: 'allowed_cidrs' }) allowedCidrs!: string[];
  @Column({ type: 'timestamptz', name: 'expires_at' }) expiresAt!: Date;
  @Column({ type: 'timestamptz', name: 'revoked_at', nullable: true }) revokedAt!: Date | null;
  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' }) createdAt!: Date;
}
