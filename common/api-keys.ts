/** Limits of API keys that the server enforces and the API keys page shows. */
export const MAX_API_KEYS = 20;
export const MAX_API_KEY_NAME = 64;
