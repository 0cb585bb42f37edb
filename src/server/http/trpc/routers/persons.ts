import { z } from "zod";
import { deletePropertyBody, listInputOf, parsePersonKey, personKeyInput, personListInput, personUpdateBody, updatePropertyBody } from "@/server/persons/contract";
import {
  deletePerson,
  deletePersonProperty,
  getPerson,
  listPersons,
  personCohorts,
  personDeletionStatus,
  updatePerson,
  updatePersonProperty,
} from "@/server/persons/service";
import { createTRPCRouter, projectProcedure } from "../trpc";

/** The persons pages: the same contracts and services as the REST resource. */
export const personsRouter = createTRPCRouter({
  list: projectProcedure.input(personListInput).query(({ ctx, input }) => listPersons(ctx, listInputOf(input))),

  get: projectProcedure.input(personKeyInput).query(({ ctx, input }) => getPerson(ctx, parsePersonKey(input.id))),

  update: projectProcedure.input(personKeyInput.extend(personUpdateBody.shape)).mutation(({ ctx, input }) => updatePerson(ctx, parsePersonKey(input.id), input)),

  setProperty: projectProcedure
    .input(personKeyInput.extend(updatePropertyBody.shape))
    .mutation(({ ctx, input }) => updatePersonProperty(ctx, parsePersonKey(input.id), input.key, input.value)),

  deleteProperty: projectProcedure
    .input(personKeyInput.extend({ key: deletePropertyBody.shape.$unset }))
    .mutation(({ ctx, input }) => deletePersonProperty(ctx, parsePersonKey(input.id), input.key)),

  delete: projectProcedure
    .input(personKeyInput.extend({ deleteEvents: z.boolean() }))
    .mutation(({ ctx, input }) => deletePerson(ctx, parsePersonKey(input.id), { deleteEvents: input.deleteEvents })),

  /** How the deletion of a (deleted) person's events is going, by the person's uuid. */
  deletion: projectProcedure.input(personKeyInput).query(({ ctx, input }) => personDeletionStatus(ctx, input.id)),

  cohorts: projectProcedure.input(personKeyInput).query(({ ctx, input }) => personCohorts(ctx, parsePersonKey(input.id))),
});
