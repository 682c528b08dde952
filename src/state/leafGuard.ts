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
