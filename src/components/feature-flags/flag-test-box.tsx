"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Badge, Button, Card, cn, FormAlert, inputClasses, TextField } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { testFlagInput } from "@/server/flags/contract";
import { bucketText, conditionName } from "./flag-draft";

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Parses the properties box: empty is `{}`; anything but a JSON object is an error message. */
function propertiesOf(text: string): Record<string, unknown> | string {
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  return 'Person properties must be a JSON object, e.g. {"plan": "pro"}.';
}

/** Who the hashes were of, when it is not simply the distinct id typed: a group's key, or the id experience continuity kept. */
function bucketedByText(bucketedBy: { id: string; groupType: string | null; continuity: boolean } | null): string | null {
  if (!bucketedBy) return null;
  if (bucketedBy.groupType !== null) return `Hashed by the ${bucketedBy.groupType} key ${bucketedBy.id}.`;
  return bucketedBy.continuity ? `Hashed by ${bucketedBy.id}, the ID this person was first bucketed with (experience continuity).` : null;
}

/**
 * "Test for a user": what the saved flag answers one distinct id (its stored person's
 * properties, overridden by the ones typed here) and, for a flag bucketed by a group, the
 * group key typed here — and why: the condition set that matched and the hashes behind it.
 */
export function FlagTestBox({ projectId, flagId }: { projectId: number; flagId: number }) {
  const trpc = useTRPC();
  const [distinctId, setDistinctId] = useState("");
  const [properties, setProperties] = useState("");
  const [groupKeys, setGroupKeys] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const test = useMutation(trpc.flags.testForUser.mutationOptions());
  const groupTypes = useQuery(trpc.flags.testGroupTypes.queryOptions({ projectId, id: flagId }));
  const named = (groupTypes.data ?? []).flatMap((type) => (type.name === null ? [] : [type.name]));
  const unnamed = (groupTypes.data ?? []).filter((type) => type.name === null);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const personProperties = propertiesOf(properties);
    const groups = Object.fromEntries(named.flatMap((type) => (groupKeys[type]?.trim() ? [[type, groupKeys[type]!.trim()]] : [])));
    const checked = typeof personProperties === "string" ? null : testFlagInput.safeParse({ distinctId, personProperties, groups });
    if (!checked?.success) {
      // The answer shown was for other input: it must not stand under the error about this one.
      test.reset();
      return setProblem(typeof personProperties === "string" ? personProperties : checked!.error!.issues[0]!.message);
    }
    setProblem(null);
    test.mutate({ projectId, id: flagId, ...checked.data });
  }

  const result = test.data?.result;
  const why = test.data?.why ?? null;
  return (
    <Card className="flex flex-col gap-4 p-4 sm:p-5" aria-labelledby="test-title" data-testid="flag-test">
      <div>
        <h2 id="test-title" className="text-base font-semibold text-gray-900">
          Test for a user
        </h2>
        <p className="mt-1 text-sm text-gray-600">Evaluates the saved flag as /decide would: the person stored for this distinct ID, with the properties below taking precedence.</p>
        {named.length > 0 && (
          <p className="mt-1 text-sm text-gray-600" data-testid="test-group-note">
            This flag buckets by {named.join(" and ")}: give {named.length === 1 ? "its key" : "their keys"}, as an SDK sends them in <code className="font-mono text-xs">groups</code>.
          </p>
        )}
      </div>
      <form onSubmit={submit} className="flex flex-col gap-3" aria-label="Test the flag for a user" noValidate>
        <TextField label="Distinct ID" value={distinctId} onChange={(event) => setDistinctId(event.target.value)} autoComplete="off" testId="test-distinct-id" inputClassName="font-mono" />
        {named.map((type) => (
          <TextField
            key={type}
            label={`${capitalised(type)} key`}
            value={groupKeys[type] ?? ""}
            onChange={(event) => setGroupKeys({ ...groupKeys, [type]: event.target.value })}
            autoComplete="off"
            placeholder="e.g. acme"
            maxLength={400}
            testId={`test-group-${type}`}
            inputClassName="font-mono"
          />
        ))}
        {unnamed.map((type) => (
          <p key={type.index} className="text-sm text-amber-800" data-testid="test-group-unnamed">
            This flag buckets by group type {type.index}, which has no name yet: no group of it has been sent, so no request can name one.
          </p>
        ))}
        {groupTypes.isError && <FormAlert>{`Could not read the flag's group types: ${errorMessage(groupTypes.error)}`}</FormAlert>}
        <label className="flex min-w-0 flex-col gap-1.5 text-sm font-medium text-gray-800">
          Person properties (JSON, optional)
          <textarea
            className={cn(inputClasses(), "h-20 py-2 font-mono")}
            placeholder='{"email": "ada@example.com"}'
            value={properties}
            onChange={(event) => setProperties(event.target.value)}
            spellCheck={false}
            data-testid="test-properties"
          />
        </label>
        {problem && <FormAlert testId="test-error">{problem}</FormAlert>}
        {test.isError && <FormAlert testId="test-error">{errorMessage(test.error)}</FormAlert>}
        <div>
          <Button type="submit" variant="secondary" loading={test.isPending} data-testid="test-run">
            Test
          </Button>
        </div>
      </form>
      {test.isSuccess && (
        <div className="rounded-control border border-gray-200 bg-gray-50 p-3 text-sm" role="status" aria-live="polite" data-testid="test-result">
          {result ? (
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2">
              <dt className="text-gray-500">Value</dt>
              <dd data-testid="test-value">
                <Badge tone={result.enabled ? "success" : "neutral"} dot>
                  {result.enabled ? (result.variant ?? "true") : "false"}
                </Badge>
              </dd>
              <dt className="text-gray-500">Why</dt>
              <dd className="min-w-0">
                <p className="font-medium text-gray-900" data-testid="test-reason">
                  {why ? `${result.reason.code === "condition_match" ? "Matched" : "Out of rollout bound of"} ${conditionName(why.conditionIndex, why.description, why.properties)}` : result.reason.description}
                </p>
                {why && (
                  <p className="mt-0.5 text-gray-700" data-testid="test-why">
                    {result.reason.code === "out_of_rollout_bound" ? "Its filters match, but " : "Its filters match and "}
                    {bucketText(why.bucket, why.rollout)}.
                  </p>
                )}
                {bucketedByText(test.data.bucketedBy) && (
                  <p className="mt-0.5 text-gray-700" data-testid="test-bucketed-by">
                    {bucketedByText(test.data.bucketedBy)}
                  </p>
                )}
                {result.reason.code === "no_group_type" && named.length > 0 && (
                  <p className="mt-0.5 text-gray-700">Give the {named.join(" or ")} key above: without it the flag is off.</p>
                )}
              </dd>
              {(test.data.holdout || test.data.variant) && (
                <>
                  <dt className="text-gray-500">Variant</dt>
                  <dd className="min-w-0 text-gray-700" data-testid="test-variant-why">
                    {test.data.holdout && <p data-testid="test-holdout">{capitalised(test.data.holdout.text)}.</p>}
                    {test.data.variant && (
                      <>
                        <p data-testid="test-variant-hash">{capitalised(test.data.variant.text)}.</p>
                        <ul className="mt-1 flex flex-wrap gap-1.5" aria-label="Variant ranges">
                          {test.data.variant.ranges.map((range) => (
                            <li key={range.key}>
                              <Badge tone={range.key === (test.data.variant!.override ?? test.data.variant!.variant) ? "success" : "neutral"}>
                                {range.key} {range.from.toFixed(2)}–{range.to.toFixed(2)}
                              </Badge>
                            </li>
                          ))}
                        </ul>
                      </>
                    )}
                  </dd>
                </>
              )}
              <dt className="text-gray-500">Payload</dt>
              <dd className="min-w-0">
                <code className="font-mono text-xs break-all text-gray-800" data-testid="test-payload">
                  {result.payload === null ? "none" : JSON.stringify(result.payload)}
                </code>
              </dd>
              {test.data.errorsWhileComputingFlags && (
                <dd className="col-span-2 text-amber-800">The stored person could not be read; this answer uses only the properties typed above.</dd>
              )}
            </dl>
          ) : (
            <p data-testid="test-reason">The flag was not evaluated (it is deleted).</p>
          )}
        </div>
      )}
    </Card>
  );
}
