/**
 * One instance of something per database handle (a `Database`, its SQL driver or its Prisma
 * client), made on first use and kept as long as the handle lives. Per handle, not per
 * process: project ids are only unique within one database, and tests open several in one
 * process. With `sharedAs`, the instances live on globalThis under that name, because modules
 * load twice (Next's bundle and the server's, STACK.md) and both copies must see one instance.
 */
export function perDatabase<K extends object, T>(make: (handle: K) => T, sharedAs?: string): (handle: K) => T {
  const own = new WeakMap<K, T>();
  const instances = (): WeakMap<K, T> => {
    if (!sharedAs) return own;
    const holder = globalThis as { [name: symbol]: WeakMap<K, T> | undefined };
    return (holder[Symbol.for(sharedAs)] ??= new WeakMap());
  };
  return (handle) => {
    const all = instances();
    let instance = all.get(handle);
    if (instance === undefined) all.set(handle, (instance = make(handle)));
    return instance;
  };
}
