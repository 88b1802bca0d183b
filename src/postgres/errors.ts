/**
 * The errors of `restaurant-partner-sdk/postgres`, in the SDK's hierarchy (each a `PartnerSdkError`).
 * @module
 */
import { PartnerSdkError } from '../errors.js';
import { isPartnerSdkError, nameErrorClass } from '../errors/base.js';

/**
 * `migrate()` refused to run: a migration already applied to the schema has other text than the
 * one this package ships (an applied migration is never edited), or the schema holds a migration
 * this package does not know (a newer version applied it). `migration` names it (`NNNN_name`).
 * Nothing was applied. Not retryable.
 */
export class MigrationChangedError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'MigrationChangedError');
  }
  /** The migration, `NNNN_name`. */
  readonly migration: string;
  constructor(message: string, details: { migration: string }) {
    super(message);
    this.migration = details.migration;
  }
}

/**
 * A table of `restaurant-partner-sdk/postgres` is missing from the schema: its migrations were
 * not applied. Run `migrate()` (or apply `migrationSql()`) first. Nothing was sent. Not retryable.
 */
export class SchemaNotMigratedError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'SchemaNotMigratedError');
  }
  /** The schema, as the partner named it. */
  readonly schema: string;
  constructor(details: { schema: string; cause?: unknown }) {
    super(
      `The tables of restaurant-partner-sdk are missing from schema "${details.schema}": run db.migrate() (or apply db.migrationSql()) before using it`,
      { cause: details.cause },
    );
    this.schema = details.schema;
  }
}

/** True for a {@link MigrationChangedError}, this copy's or another copy's of the package. */
export const isMigrationChangedError = (error: unknown): error is MigrationChangedError =>
  isPartnerSdkError(error, MigrationChangedError);
/** True for a {@link SchemaNotMigratedError}, this copy's or another copy's of the package. */
export const isSchemaNotMigratedError = (error: unknown): error is SchemaNotMigratedError =>
  isPartnerSdkError(error, SchemaNotMigratedError);
