/** Whether a parsed JSON value is an object (not null, not an array), whose members may then be read. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
