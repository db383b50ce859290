/** PostgreSQL reports constraint violations by SQLSTATE on both engines. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23505';
}

export function isForeignKeyViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23503';
}
