/** The signed-in user as pages and the internal API see them: never a hash, never a token. */
export interface Viewer {
  id: string;
  name: string;
  email: string;
  image: string | null;
  role: "user" | "admin";
  locale: string | null;
}
