import type { DevContext } from '../context.js';
import { HttpError } from '../http.js';
import { Collection } from './collection.js';

/** An alias: a name that points at one version of one object (`prod` → digest). */
interface Alias {
  object_id: string;
  alias: string;
  digest: string;
}

/** The tags of one object version. */
interface VersionTags {
  object_id: string;
  digest: string;
  tags: string[];
}

/**
 * The collections that hold the labels. They are never evicted: a label belongs to an object version, and
 * versions are kept until deleted, so evicting a label would silently change what an alias reads.
 */
export const LABEL_COLLECTIONS = { aliases: 'object_aliases', tags: 'object_tags' } as const;

// Collection ids: an object id may hold any character, so the parts are joined as JSON.
const id = (...parts: string[]) => JSON.stringify(parts);

/**
 * Aliases and tags of versioned objects. An alias names one version of an object at a time (setting it
 * again moves it) and can be read wherever a digest is (`/obj/read`); tags are labels on a version. Both
 * are records of the collection store, so they reach the `--data` log like every other write.
 */
export class ObjectLabels {
  private readonly aliases: Collection<Alias>;
  private readonly tags: Collection<VersionTags>;

  constructor(private readonly ctx: DevContext) {
    this.aliases = new Collection<Alias>(ctx, LABEL_COLLECTIONS.aliases, 'Alias');
    this.tags = new Collection<VersionTags>(ctx, LABEL_COLLECTIONS.tags, 'Tags');
  }

  /** Points each alias at `digest` (a digest, `latest`, `v<N>` or another alias), or a 404 when there is no such version. */
  setAliases(projectId: string, objectId: string, digest: string, aliases: string[]): void {
    aliases.forEach((alias, i) => {
      // `latest` and `v<N>` already name versions; an alias of that name would never be read.
      if (alias === 'latest' || /^v\d+$/.test(alias)) {
        throw new HttpError(422, [{ loc: ['body', 'aliases', i], msg: `"${alias}" is reserved: it already names a version`, type: 'value_error' }]);
      }
    });
    const target = this.version(projectId, objectId, digest);
    for (const alias of aliases) this.aliases.put(projectId, id(objectId, alias), { object_id: objectId, alias, digest: target });
  }

  /** Removes aliases of one object; unknown ones are ignored. */
  removeAliases(projectId: string, objectId: string, aliases: string[]): void {
    this.aliases.delete(
      projectId,
      aliases.map((alias) => id(objectId, alias)),
    );
  }

  /** Adds tags to one version, or a 404 when there is no such version. */
  addTags(projectId: string, objectId: string, digest: string, tags: string[]): void {
    const target = this.version(projectId, objectId, digest);
    const current = this.tags.get(projectId, id(objectId, target))?.tags ?? [];
    this.putTags(projectId, objectId, target, [...new Set([...current, ...tags])]);
  }

  /** Removes tags from one version; unknown ones are ignored. */
  removeTags(projectId: string, objectId: string, digest: string, tags: string[]): void {
    const target = this.version(projectId, objectId, digest);
    const current = this.tags.get(projectId, id(objectId, target))?.tags ?? [];
    this.putTags(
      projectId,
      objectId,
      target,
      current.filter((t) => !tags.includes(t)),
    );
  }

  /** The digest an alias of the object points at; anything else comes back as it is. */
  resolve(projectId: string, objectId: string, digestOrAlias: string): string {
    return this.aliases.get(projectId, id(objectId, digestOrAlias))?.digest ?? digestOrAlias;
  }

  /** Every alias name in the project, sorted. */
  aliasNames(projectId: string): string[] {
    return [...new Set(this.aliases.list(projectId).map((a) => a.alias))].sort();
  }

  /** Every tag name in the project, sorted. */
  tagNames(projectId: string): string[] {
    return [...new Set(this.tags.list(projectId).flatMap((t) => t.tags))].sort();
  }

  /** Forgets the aliases and tags of deleted versions, so that an alias never outlives its version. */
  dropVersions(projectId: string, objectId: string, digests: string[]): void {
    const stale = this.aliases.list(projectId).filter((a) => a.object_id === objectId && digests.includes(a.digest));
    this.aliases.delete(
      projectId,
      stale.map((a) => id(objectId, a.alias)),
    );
    this.tags.delete(
      projectId,
      digests.map((d) => id(objectId, d)),
    );
  }

  private putTags(projectId: string, objectId: string, digest: string, tags: string[]): void {
    if (tags.length === 0) this.tags.delete(projectId, [id(objectId, digest)]);
    else this.tags.put(projectId, id(objectId, digest), { object_id: objectId, digest, tags: tags.sort() });
  }

  private version(projectId: string, objectId: string, digest: string): string {
    const found = this.ctx.store.objectVersion(projectId, objectId, this.resolve(projectId, objectId, digest));
    if (!found) throw new HttpError(404, `Obj ${objectId}:${digest} not found in project ${projectId}.`);
    return found.digest;
  }
}
