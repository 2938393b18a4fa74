/** The closed set of application error codes: each has one HTTP status and one message key (common namespace). */
export const ERROR_CODES = {
  bad_request: { status: 400, messageKey: "error.400" },
  unauthorized: { status: 401, messageKey: "msg.loginFirst" },
  session_expired: { status: 401, messageKey: "msg.sessionExpired" },
  forbidden: { status: 403, messageKey: "error.403" },
  not_found: { status: 404, messageKey: "error.404" },
  payload_too_large: { status: 413, messageKey: "error.400" },
  insufficient_credits: { status: 402, messageKey: "msg.generation.insufficientCredits" },
  conflict: { status: 409, messageKey: "error.400" },
  code_invalid: { status: 400, messageKey: "credits.redeem.invalid" },
  code_expired: { status: 400, messageKey: "credits.redeem.expired" },
  code_used_up: { status: 409, messageKey: "credits.redeem.usedUp" },
  code_already_redeemed: { status: 409, messageKey: "credits.redeem.alreadyRedeemed" },
  unknown_pack: { status: 400, messageKey: "pricing.errors.unknownPack" },
  purchasing_disabled: { status: 503, messageKey: "pricing.errors.notConfigured" },
  checkout_failed: { status: 502, messageKey: "pricing.errors.checkoutFailed" },
  rate_limited: { status: 429, messageKey: "error.tooMany" },
  internal_error: { status: 500, messageKey: "error.500" },
  service_unavailable: { status: 503, messageKey: "error.unknown" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
