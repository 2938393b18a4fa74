import { createContext } from "react";

/**
 * This response's CSP nonce, for the inline scripts the server renders; only the server render provides it. It is
 * not loader data, so no page's data differs from one visitor to the next because of it.
 */
export const NonceContext = createContext("");
