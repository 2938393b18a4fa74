/** A database problem at start-up that the operator must fix; its message is shown as it is. */
export class DatabaseStartError extends Error {}
