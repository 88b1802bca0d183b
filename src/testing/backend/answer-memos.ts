/**
 * What the partner API keeps of one world to answer repeated requests without redoing them: the
 * decoded `Authorization` values (a suite sends the same few again and again) and the restaurant
 * list's text per partner. Held by the world, so it ends with it, and one world's credentials
 * never sit beside another's.
 * @module
 */

/** A Basic `Authorization` header's parts. */
export interface BasicCredentials {
  username: string;
  password: string;
}

/** Most `Authorization` values kept, oldest dropped first. */
const MAX_AUTHORIZATIONS = 256;

export class AnswerMemos {
  readonly #authorizations = new Map<string, BasicCredentials | undefined>();
  #restaurantLists: { version: number; byPartner: Map<string, string> } | undefined;

  /** `header` as `decode` reads it (none when there is none), kept for the next request sending it. */
  authorization(
    header: string | null,
    decode: (header: string) => BasicCredentials | undefined,
  ): BasicCredentials | undefined {
    if (header === null) return undefined;
    if (this.#authorizations.has(header)) return this.#authorizations.get(header);
    const credentials = decode(header);
    if (this.#authorizations.size >= MAX_AUTHORIZATIONS)
      this.#authorizations.delete(this.#authorizations.keys().next().value!);
    this.#authorizations.set(header, credentials);
    return credentials;
  }

  /**
   * The restaurant list's text for `partnerId`, made by `make` once per world `version`:
   * restaurants change only through calls that move the version, and a suite lists them again and
   * again.
   */
  restaurantList(version: number, partnerId: string, make: () => string): string {
    if (this.#restaurantLists?.version !== version) this.#restaurantLists = { version, byPartner: new Map() };
    let text = this.#restaurantLists.byPartner.get(partnerId);
    if (text === undefined) {
      text = make();
      this.#restaurantLists.byPartner.set(partnerId, text);
    }
    return text;
  }
}
