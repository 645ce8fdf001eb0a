// Drives an unmodified jsforce against a served B2B org: describes and relationship queries over the sales
// objects, printed as one JSON object. (LOGIN_URL, SF_USERNAME, SF_PASSWORD and NODE_PATH come from the test.)
const jsforce = require('jsforce');

async function main() {
  const out = {};
  const conn = new jsforce.Connection({ loginUrl: process.env.LOGIN_URL, version: '59.0' });
  await conn.login(process.env.SF_USERNAME, process.env.SF_PASSWORD);

  const global = await conn.describeGlobal();
  out.prefixes = Object.fromEntries(global.sobjects.map((item) => [item.name, item.keyPrefix]));
  const opportunity = await conn.sobject('Opportunity').describe();
  const stage = opportunity.fields.find((field) => field.name === 'StageName');
  out.stages = stage.picklistValues.map((value) => value.value);
  out.opportunityChildren = opportunity.childRelationships.map((child) => child.relationshipName).filter(Boolean);
  const task = await conn.sobject('Task').describe();
  const what = task.fields.find((field) => field.name === 'WhatId');
  out.what = { referenceTo: what.referenceTo, polymorphic: what.polymorphicForeignKey };

  const won = await conn.query(
    "SELECT Name, Account.Name, (SELECT Quantity, PricebookEntry.Product2.Name FROM OpportunityLineItems) " +
      "FROM Opportunity WHERE IsWon = true ORDER BY CloseDate LIMIT 3",
  );
  out.won = won.records.map((record) => ({
    account: record.Account.Name,
    products: record.OpportunityLineItems.records.map((line) => line.PricebookEntry.Product2.Name),
  }));
  const territories = await conn.query(
    'SELECT Name, Description, (SELECT User.Name FROM UserTerritory2Associations) FROM Territory2 ORDER BY Name',
  );
  out.territories = territories.records.map((record) => ({
    name: record.Name,
    states: record.Description.split(', '),
    members: record.UserTerritory2Associations.records.map((member) => member.User.Name),
  }));
  const quotes = await conn.sobject('Quote').find({ Status: 'Accepted' }, ['Id', 'Opportunity.StageName']).limit(3);
  out.acceptedQuoteStages = quotes.map((quote) => quote.Opportunity.StageName);
  console.log(JSON.stringify(out));
}

main().catch((error) => {
  console.error(error.stack || String(error));
  process.exit(1);
});
