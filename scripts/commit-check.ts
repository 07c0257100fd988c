/**
 * `npm run lint`'s commit-message check (docs/versioning.md): every commit after `.commit-base`
 * has a subject `type(scope): what` of at most 72 characters, its type from the fixed list
 * (scripts/commits.ts). Outside a git clone, or in a shallow one without the base, it says so
 * and checks nothing: there is no history to read.
 */
import { commitBase, commitsAfter, hasCommit, subjectProblems } from './commits.ts';

const base = commitBase();
if (!hasCommit(base)) {
  console.log(
    `commit check: ${base.slice(0, 12)} (.commit-base) is not in this clone's history; nothing checked`,
  );
} else {
  const commits = commitsAfter(base);
  const bad = commits.flatMap((c) => {
    const p = subjectProblems(c.subject);
    return p.length > 0 ? [`${c.id.slice(0, 12)} "${c.subject}": ${p.join('; ')}`] : [];
  });
  if (bad.length > 0) {
    console.error(`commit check: ${bad.length} of ${commits.length} subjects after the base do not pass:`);
    for (const b of bad) console.error(`  ${b}`);
    process.exit(1);
  }
  console.log(`commit check: ${commits.length} commits after ${base.slice(0, 12)} pass`);
}
