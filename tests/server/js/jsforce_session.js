// Drives an unmodified jsforce against the mock org and prints what it saw as one JSON object.
// Usage: node jsforce_session.js  (LOGIN_URL, SF_USERNAME, SF_PASSWORD and NODE_PATH come from the test)
const jsforce = require('jsforce');

async function main() {
  const out = {};
  const conn = new jsforce.Connection({ loginUrl: process.env.LOGIN_URL, version: '59.0' });
  const info = await conn.login(process.env.SF_USERNAME, process.env.SF_PASSWORD);
  out.login = { userId: info.id, organizationId: info.organizationId, instanceUrl: conn.instanceUrl };

  const headers = { 'Sforce-Query-Options': 'batchSize=200' };
  const all = await conn.query('SELECT Id, Name FROM Product2 ORDER BY Name', { autoFetch: true, maxFetch: 100000, headers });
  out.autoFetch = { totalSize: all.totalSize, fetched: all.records.length, done: all.done };
  const firstPage = await conn.query('SELECT Id FROM Product2', { headers });
  out.firstPage = { fetched: firstPage.records.length, done: firstPage.done, nextRecordsUrl: firstPage.nextRecordsUrl };

  const found = await conn.search('FIND {Walker} IN ALL FIELDS RETURNING Account(Id, Name)');
  out.search = found.searchRecords.map((record) => record.Name);

  const created = await conn.sobject('Issue__c').create({ Name: 'From jsforce' });
  const read = await conn.sobject('Issue__c').retrieve(created.id);
  await conn.sobject('Issue__c').update({ Id: created.id, Description__c: 'updated by jsforce' });
  const reread = await conn.sobject('Issue__c').retrieve(created.id);
  const destroyed = await conn.sobject('Issue__c').destroy(created.id);
  const deleted = await conn.query(`SELECT Id, IsDeleted FROM Issue__c WHERE Id = '${created.id}'`, { scanAll: true });
  out.crud = {
    created: created.success, name: read.Name, description: reread.Description__c, destroyed: destroyed.success,
    deletedRows: deleted.records.map((record) => record.IsDeleted),
  };

  const identity = await conn.identity();
  out.identity = { username: identity.username, userId: identity.user_id };
  out.limitInfo = conn.limitInfo;

  // Plain HTTP works for jsforce: login (a chunked SOAP request) and REST over http://.
  const plain = new jsforce.Connection({ loginUrl: process.env.HTTP_LOGIN_URL, version: '59.0' });
  await plain.login(process.env.SF_USERNAME, process.env.SF_PASSWORD);
  const plainCount = await plain.query('SELECT COUNT() FROM Case');
  out.plainHttp = { instanceUrl: plain.instanceUrl, cases: plainCount.totalSize };

  try {
    await conn.query('SELECT Id FRM Account');
    out.error = null;
  } catch (error) {
    out.error = { name: error.name, errorCode: error.errorCode, message: error.message };
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error));
  process.exit(1);
});
