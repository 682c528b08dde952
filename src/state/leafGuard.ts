// The leaf guard (DESIGN.md "Leaf guard"): a side call's result applies only if the leaf noted
// before the call is still an ancestor of (or equal to) the current leaf. Appends on the same
// chain are not drift; switching to another branch is.

export function leafStillCurrent(
  leafBefore: string | null,
  leafNow: string | null,
  isAncestorOrSelf: (ancestor: string | null, node: string | null) => boolean,
): boolean {
  if (leafBefore === leafNow) return true;
  try {
    return isAncestorOrSelf(leafBefore, leafNow);
  } catch {
    // If ancestry cannot be decided, dropping the result is the safe side.
    return false;
  }
}

/** A guard for `Session.append`: it remembers whether it ever refused, however the write reports it. */
export interface LeafGuard {
  (leafNow: string | null): boolean;
  readonly refused: boolean;
}

export function leafGuardFor(
  leafBefore: string | null,
  isAncestorOrSelf: (ancestor: string | null, node: string | null) => boolean,
): LeafGuard {
  let refused = false;
  const guard = (leafNow: string | null): boolean => {
    const ok = leafStillCurrent(leafBefore, leafNow, isAncestorOrSelf);
    if (!ok) refused = true;
    return ok;
  };
  return Object.defineProperty(guard, 'refused', { get: () => refused, enumerable: true }) as LeafGuard;
}
